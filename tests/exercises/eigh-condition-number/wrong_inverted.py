# Wrong: divides the smallest |eigenvalue| by the largest, the inverse of the condition number
def condition_numbers(matrices: torch.Tensor) -> torch.Tensor:
    magnitudes = torch.linalg.eigvalsh(matrices).abs()
    return magnitudes.amin(dim=-1) / magnitudes.amax(dim=-1)
