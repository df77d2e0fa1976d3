# The MX quantizer and dequantizer that mx-blocks derives.
# Runs after the stamped cell `mx_formats`.
# Source: tools/snippets/mx_quantizer.py; `make stamp` copies it here.
class MXTensor(NamedTuple):
    scales: torch.Tensor  # float8_e8m0fnu, one per block of consecutive values
    elements: torch.Tensor  # the FP8 dtype, or uint8 codes for FP6 and FP4
    fmt: ElementFormat
    shape: torch.Size


def mx_quantize(x: torch.Tensor, fmt: ElementFormat, block: int = 32) -> MXTensor:
    # shared_exp = floor(log2(amax)) - emax, clamped to E8M0's range; 2^-127 for
    # an all-zero block, the NaN scale 0xFF for a block with a NaN or an infinity.
    blocks = x.float().reshape(-1, block)
    amax = blocks.abs().amax(dim=1, keepdim=True)
    shared_exp = (torch.frexp(amax)[1] - 1 - emax(fmt)).clamp(-127, 127)
    shared_exp = torch.where(amax == 0, -127, shared_exp)
    special = ~amax.isfinite()
    scale_byte = torch.where(special, 255, shared_exp + 127).to(torch.uint8)
    scaled = torch.where(special, 0.0, blocks / torch.exp2(shared_exp.float()))
    rounded = round_to_element(scaled, fmt)
    fp8 = fmt.torch_dtype is not None
    elements = rounded.to(fmt.torch_dtype) if fp8 else code_of(rounded, fmt)
    scales = scale_byte.view(torch.float8_e8m0fnu).squeeze(1)
    return MXTensor(scales, elements.reshape(x.shape), fmt, x.shape)


def mx_dequantize(mx: MXTensor) -> torch.Tensor:
    # Each element's value times its block's scale, in float32.
    table = element_values(mx.fmt).to(mx.elements.device)
    values = table[mx.elements.view(torch.uint8).long()]
    blocks = values.reshape(mx.scales.numel(), -1) * mx.scales.float()[:, None]
    return blocks.reshape(mx.shape)
