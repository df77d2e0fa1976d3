# Wrong: solves R x = b[:n], dropping Q altogether
def lstsq_qr(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    q, r = torch.linalg.qr(a.to(op_device))
    rhs = b.to(op_device)[: r.shape[0]]
    return torch.linalg.solve_triangular(r, rhs, upper=True).cpu()
