# Wrong: reads _orig_mod alone, which a compiled function does not have
def eager_original(compiled):
    return compiled._orig_mod
