# Wrong: forgets the rotation back, V diag(w^(-1/2)) without the final Vᵀ
def whitening_matrices(covariance: torch.Tensor) -> torch.Tensor:
    variances, axes = torch.linalg.eigh(covariance)
    return axes @ torch.diag_embed(variances.rsqrt())
