# Wrong: divides the largest eigenvalue by the smallest, forgetting that they can be negative
def condition_numbers(matrices: torch.Tensor) -> torch.Tensor:
    eigenvalues = torch.linalg.eigvalsh(matrices)
    return eigenvalues[..., -1] / eigenvalues[..., 0]
