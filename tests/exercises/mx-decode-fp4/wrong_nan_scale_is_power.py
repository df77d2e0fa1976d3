# Wrong: treated scale byte 0xFF as the power of two 2^128, not as NaN
def decode_mxfp4(scale_byte: int, codes: torch.Tensor) -> torch.Tensor:
    codes = codes.long()
    sign = torch.where(codes & 0b1000 != 0, -1.0, 1.0)
    exponent = (codes >> 1) & 0b11
    mantissa = (codes & 1).double()
    significand = torch.where(exponent > 0, 1 + mantissa / 2, mantissa / 2)
    power = torch.where(exponent > 0, exponent, 1) - 1  # E2M1's bias is 1
    values = sign * significand * torch.exp2(power.double())
    return (values * 2.0 ** (scale_byte - 127)).float()
