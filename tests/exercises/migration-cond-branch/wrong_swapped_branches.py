# Wrong: passes the branches to torch.cond in the wrong order (false branch first)
class SignScale(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cond(x.sum() > 0, lambda t: -t, lambda t: t * 2, (x,))
