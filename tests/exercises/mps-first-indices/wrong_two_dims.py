# Wrong: returns nonzero_static's (k, 1) result without flattening it to shape (k,)
def first_indices(mask: torch.Tensor, k: int) -> torch.Tensor:
    return torch.nonzero_static(mask.to(op_device), size=k, fill_value=-1).cpu()
