# Wrong: scales by the square root of the eigenvalues instead of the inverse square root
def whitening_matrices(covariance: torch.Tensor) -> torch.Tensor:
    variances, axes = torch.linalg.eigh(covariance)
    return axes @ torch.diag_embed(variances.sqrt()) @ axes.mT
