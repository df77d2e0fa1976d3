# Wrong: keeps the Python `if`, which export cannot trace on data
class SignScale(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.sum() > 0:
            return x * 2
        return -x
