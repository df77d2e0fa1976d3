# Wrong: summed the series in a loop of tensor operators, so their number grows with steps
def folded_chain(x: torch.Tensor, steps: int) -> torch.Tensor:
    shift = torch.zeros_like(x)
    for k in range(steps):
        shift = shift + SHIFT * DECAY**k
    return x * DECAY**steps + shift
