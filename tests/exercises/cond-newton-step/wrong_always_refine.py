# Wrong: refined on every call, whatever the residual
def newton_step(a: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    def refine(a, y):
        return (y + a / y) / 2

    def keep(a, y):
        return y.clone()

    return torch.cond(torch.tensor(True, device=y.device), refine, keep, (a, y))
