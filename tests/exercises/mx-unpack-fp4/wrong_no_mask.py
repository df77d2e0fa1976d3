# Wrong: takes the whole byte as the first code instead of masking its low four bits
def unpack_fp4(packed: torch.Tensor) -> torch.Tensor:
    return torch.stack([packed, packed >> 4], dim=-1).flatten(-2)
