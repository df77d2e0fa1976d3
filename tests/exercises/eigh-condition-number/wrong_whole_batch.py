# Wrong: reduces over the whole batch, giving one number for all matrices
def condition_numbers(matrices: torch.Tensor) -> torch.Tensor:
    magnitudes = torch.linalg.eigvalsh(matrices).abs()
    return magnitudes.max() / magnitudes.min()
