# Wrong: takes |last| / |first| eigenvalue, which are not the extremes of |w| when signs differ
def condition_numbers(matrices: torch.Tensor) -> torch.Tensor:
    eigenvalues = torch.linalg.eigvalsh(matrices)
    return (eigenvalues[..., -1] / eigenvalues[..., 0]).abs()
