# Wrong: returns what torch.compile returned, the compiled wrapper, not the original
def eager_original(compiled):
    return compiled
