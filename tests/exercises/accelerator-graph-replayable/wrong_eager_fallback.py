# Wrong: returned fn itself, so nothing is captured or replayed
def make_replayable(fn, example: torch.Tensor):
    return fn
