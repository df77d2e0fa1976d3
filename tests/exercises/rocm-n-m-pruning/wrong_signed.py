# Wrong: ranks by signed value instead of magnitude, so large negative weights are dropped
def prune_n_m(
    weight: torch.Tensor, n: int, m: int
) -> tuple[torch.Tensor, torch.Tensor]:
    groups = weight.reshape(weight.shape[0], -1, m)
    keep = groups.topk(n, dim=-1).indices
    mask = torch.zeros_like(groups, dtype=torch.bool).scatter_(-1, keep, True)
    return (groups * mask).reshape(weight.shape), mask.reshape(weight.shape)
