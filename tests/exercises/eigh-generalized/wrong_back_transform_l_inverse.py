# Wrong: maps the vectors back with L⁻¹ y instead of L⁻ᵀ y
def generalized_eigh(a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    lower = torch.linalg.cholesky(b)
    half = torch.linalg.solve_triangular(lower, a, upper=False)
    c = torch.linalg.solve_triangular(lower, half.mT, upper=False)
    w, y = torch.linalg.eigh(c)
    return w, torch.linalg.solve_triangular(lower, y, upper=False)
