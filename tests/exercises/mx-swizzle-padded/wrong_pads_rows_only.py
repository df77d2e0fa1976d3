# Wrong: pads the rows to 128 but leaves the columns as they are, then lets view() fail
def swizzle_padded(scales: torch.Tensor) -> torch.Tensor:
    rows, cols = scales.shape
    padded = torch.zeros(-(-rows // 128) * 128, cols, dtype=scales.dtype)
    padded[:rows] = scales
    return swizzle_32_4_4(padded)
