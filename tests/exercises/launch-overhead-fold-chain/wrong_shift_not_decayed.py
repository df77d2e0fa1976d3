# Wrong: added SHIFT once per step, forgetting that each later step decays it
def folded_chain(x: torch.Tensor, steps: int) -> torch.Tensor:
    return x * DECAY**steps + SHIFT * steps
