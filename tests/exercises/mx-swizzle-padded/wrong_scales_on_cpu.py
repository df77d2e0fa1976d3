# Wrong: allocates the padded tensor without device=, so a GPU's scales come back on the CPU
def swizzle_padded(scales: torch.Tensor) -> torch.Tensor:
    rows, cols = scales.shape
    padded_rows, padded_cols = -(-rows // 128) * 128, -(-cols // 4) * 4
    padded = torch.zeros(padded_rows, padded_cols, dtype=scales.dtype)
    padded[:rows, :cols] = scales
    return swizzle_32_4_4(padded)
