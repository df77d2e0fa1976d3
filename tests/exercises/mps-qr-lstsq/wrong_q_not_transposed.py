# Wrong: multiplies by Q instead of Q transposed
def lstsq_qr(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    q, r = torch.linalg.qr(a.to(op_device))
    rhs = q @ b.to(op_device)
    return torch.linalg.solve_triangular(r, rhs, upper=True).cpu()
