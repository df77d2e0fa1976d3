# Wrong: divides by the per-axis standard deviations, ignoring that the clouds are rotated
def whitening_matrices(covariance: torch.Tensor) -> torch.Tensor:
    return torch.diag_embed(covariance.diagonal(dim1=-2, dim2=-1).rsqrt())
