# Wrong: turns the predicate into a Python bool, so export has to pick a branch
class SignScale(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cond(bool(x.sum() > 0), lambda t: t * 2, lambda t: -t, (x,))
