# Wrong: one step short, DECAY ** (steps - 1)
def folded_chain(x: torch.Tensor, steps: int) -> torch.Tensor:
    scale = DECAY ** (steps - 1)
    return x * scale + SHIFT * (1 - scale) / (1 - DECAY)
