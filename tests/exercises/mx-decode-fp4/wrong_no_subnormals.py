# Wrong: decoded exponent bits 00 as a normal number (an implicit leading 1)
def decode_mxfp4(scale_byte: int, codes: torch.Tensor) -> torch.Tensor:
    codes = codes.long()
    sign = torch.where(codes & 0b1000 != 0, -1.0, 1.0)
    exponent = (codes >> 1) & 0b11
    mantissa = (codes & 1).double()
    significand = 1 + mantissa / 2
    power = exponent - 1  # E2M1's bias is 1
    values = sign * significand * torch.exp2(power.double())
    if scale_byte == 0xFF:  # E8M0's only special code: the whole block is NaN
        return torch.full(codes.shape, math.nan)
    return (values * 2.0 ** (scale_byte - 127)).float()
