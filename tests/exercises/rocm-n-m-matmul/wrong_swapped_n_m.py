# Wrong: swaps n and m in the group arithmetic
def compressed_matmul(
    values: torch.Tensor, positions: torch.Tensor, x: torch.Tensor, n: int, m: int
) -> torch.Tensor:
    columns = torch.arange(values.shape[1]) // m * n + positions.long()
    return torch.einsum("rk,rkn->rn", values, x[columns.clamp(max=x.shape[0] - 1)])
