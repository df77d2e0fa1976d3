# Wrong: looked the setting up in dir(), which a config module does not fill with its settings
def release_note_check(setting, env_var):
    mentioned = any(env_var in text for text in torch_sources.values())
    return setting in dir(inductor_config), mentioned
