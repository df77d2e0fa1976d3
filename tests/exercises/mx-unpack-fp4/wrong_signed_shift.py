# Wrong: converts to int8 first, so the shift keeps the sign bit and codes 8 to 15 of the
# high nibble come out negative (and the result is int8, not uint8)
def unpack_fp4(packed: torch.Tensor) -> torch.Tensor:
    signed = packed.to(torch.int8)
    return torch.stack([signed & 0xF, signed >> 4], dim=-1).flatten(-2)
