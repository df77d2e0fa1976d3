# Wrong: ignored the sign bit, so negative codes decode as positive values
def decode_mxfp4(scale_byte: int, codes: torch.Tensor) -> torch.Tensor:
    codes = codes.long()
    sign = torch.ones(codes.shape)
    exponent = (codes >> 1) & 0b11
    mantissa = (codes & 1).double()
    significand = torch.where(exponent > 0, 1 + mantissa / 2, mantissa / 2)
    power = torch.where(exponent > 0, exponent, 1) - 1  # E2M1's bias is 1
    values = sign * significand * torch.exp2(power.double())
    if scale_byte == 0xFF:  # E8M0's only special code: the whole block is NaN
        return torch.full(codes.shape, math.nan)
    return (values * 2.0 ** (scale_byte - 127)).float()
