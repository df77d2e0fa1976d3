# Wrong: searched only Inductor's config module for the variable, not the whole of torch
def release_note_check(setting, env_var):
    mentioned = env_var in torch_sources["_inductor/config.py"]
    return hasattr(inductor_config, setting), mentioned
