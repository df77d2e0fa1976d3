# Wrong: swizzles without padding, which only works when the shape already fills whole tiles
def swizzle_padded(scales: torch.Tensor) -> torch.Tensor:
    return swizzle_32_4_4(scales)
