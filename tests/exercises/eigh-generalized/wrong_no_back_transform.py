# Wrong: returns eigh's vectors y of L⁻¹ A L⁻ᵀ without mapping them back (v = L⁻ᵀ y)
def generalized_eigh(a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    lower = torch.linalg.cholesky(b)
    half = torch.linalg.solve_triangular(lower, a, upper=False)
    c = torch.linalg.solve_triangular(lower, half.mT, upper=False)
    return torch.linalg.eigh(c)
