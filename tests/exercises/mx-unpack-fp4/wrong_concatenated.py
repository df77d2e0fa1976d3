# Wrong: all the low codes, then all the high ones, instead of interleaving them
def unpack_fp4(packed: torch.Tensor) -> torch.Tensor:
    return torch.cat([packed & 0xF, packed >> 4], dim=-1)
