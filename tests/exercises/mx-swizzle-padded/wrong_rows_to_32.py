# Wrong: pads the rows to a multiple of 32 (the inner interleave) instead of 128 (the tile)
def swizzle_padded(scales: torch.Tensor) -> torch.Tensor:
    rows, cols = scales.shape
    padded_rows, padded_cols = -(-rows // 32) * 32, -(-cols // 4) * 4
    padded = torch.zeros(padded_rows, padded_cols, dtype=scales.dtype)
    padded[:rows, :cols] = scales
    return swizzle_32_4_4(padded)
