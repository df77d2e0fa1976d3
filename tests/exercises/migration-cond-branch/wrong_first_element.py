# Wrong: decides on the first element instead of the sum of all of x
class SignScale(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cond(x[0, 0] > 0, lambda t: t * 2, lambda t: -t, (x,))
