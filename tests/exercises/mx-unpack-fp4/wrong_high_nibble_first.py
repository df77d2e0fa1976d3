# Wrong: puts the high four bits first, the reverse of pack_fp4's order
def unpack_fp4(packed: torch.Tensor) -> torch.Tensor:
    low, high = packed & 0xF, packed >> 4
    return torch.stack([high, low], dim=-1).flatten(-2)
