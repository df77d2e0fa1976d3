# Wrong: uses the inverse covariance (1 / w) instead of its inverse square root
def whitening_matrices(covariance: torch.Tensor) -> torch.Tensor:
    variances, axes = torch.linalg.eigh(covariance)
    return axes @ torch.diag_embed(1 / variances) @ axes.mT
