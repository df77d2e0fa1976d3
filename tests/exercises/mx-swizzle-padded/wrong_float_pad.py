# Wrong: pads the values as floats, which turns E8M0 scales into float32
def swizzle_padded(scales: torch.Tensor) -> torch.Tensor:
    rows, cols = scales.shape
    extra_rows, extra_cols = -rows % 128, -cols % 4
    padded = torch.nn.functional.pad(scales.float(), (0, extra_cols, 0, extra_rows))
    return swizzle_32_4_4(padded)
