# Wrong: copies the scales into the bottom-right corner, so the padding comes first
def swizzle_padded(scales: torch.Tensor) -> torch.Tensor:
    rows, cols = scales.shape
    padded_rows, padded_cols = -(-rows // 128) * 128, -(-cols // 4) * 4
    padded = torch.zeros(padded_rows, padded_cols, dtype=scales.dtype)
    padded[padded_rows - rows :, padded_cols - cols :] = scales
    return swizzle_32_4_4(padded)
