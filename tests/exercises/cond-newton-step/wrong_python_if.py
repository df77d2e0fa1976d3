# Wrong: decided with a Python if on a tensor, which fullgraph compilation rejects
def newton_step(a: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    residual = ((y * y - a).abs() / a).max()
    if residual > 1e-6:
        return (y + a / y) / 2
    return y
