# Wrong: asked whether the variable is set in this process, not whether torch reads it
def release_note_check(setting, env_var):
    import os

    return hasattr(inductor_config, setting), env_var in os.environ
