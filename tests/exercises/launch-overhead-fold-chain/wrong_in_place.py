# Wrong: computed in place, which changes the caller's x
def folded_chain(x: torch.Tensor, steps: int) -> torch.Tensor:
    scale = DECAY**steps
    return x.mul_(scale).add_(SHIFT * (1 - scale) / (1 - DECAY))
