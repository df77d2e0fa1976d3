# Wrong: took a setting whose value is None for a missing setting
def release_note_check(setting, env_var):
    has_setting = getattr(inductor_config, setting, None) is not None
    mentioned = any(env_var in text for text in torch_sources.values())
    return has_setting, mentioned
