# Wrong: always groups by four, whatever m is
def prune_n_m(
    weight: torch.Tensor, n: int, m: int
) -> tuple[torch.Tensor, torch.Tensor]:
    groups = weight.reshape(weight.shape[0], -1, 4)
    keep = groups.abs().topk(min(n, 4), dim=-1).indices
    mask = torch.zeros_like(groups, dtype=torch.bool).scatter_(-1, keep, True)
    return (groups * mask).reshape(weight.shape), mask.reshape(weight.shape)
