# Wrong: calls eigh on B⁻¹A, which is not symmetric (eigh reads only its lower triangle)
def generalized_eigh(a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.linalg.eigh(torch.linalg.solve(b, a))
