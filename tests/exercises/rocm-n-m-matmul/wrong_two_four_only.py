# Wrong: keeps the 2:4 column formula (k // 2 * 4) from sparse_matmul_reference
def compressed_matmul(
    values: torch.Tensor, positions: torch.Tensor, x: torch.Tensor, n: int, m: int
) -> torch.Tensor:
    columns = torch.arange(values.shape[1]) // 2 * 4 + positions.long()
    return torch.einsum("rk,rkn->rn", values, x[columns])
