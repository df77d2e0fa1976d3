# MX element formats and rounding to them, as mx-from-first-principles derives and
# tests them. Source: tools/snippets/mx_formats.py; `make stamp` copies it here.
import math
from typing import NamedTuple


class ElementFormat(NamedTuple):
    ebits: int
    mbits: int
    bits: int  # 1 + ebits + mbits
    bias: int  # the exponent bias, 2 ** (ebits - 1) - 1
    torch_dtype: torch.dtype | None = None  # FP8 has one; FP6 and FP4 do not


FORMATS = {
    f"MXFP{1 + e + m} E{e}M{m}": ElementFormat(e, m, 1 + e + m, 2 ** (e - 1) - 1, dtype)
    for e, m, dtype in [
        (4, 3, torch.float8_e4m3fn),
        (5, 2, torch.float8_e5m2),
        (2, 3, None),
        (3, 2, None),
        (2, 1, None),
    ]
}


def element_values(fmt: ElementFormat) -> torch.Tensor:
    # The value of every code. FP8: torch's dtype decodes it (it agrees with the
    # bits, as mx-from-first-principles checks); FP6 and FP4 have no NaN or Inf.
    if fmt.torch_dtype is not None:
        return torch.arange(256, dtype=torch.uint8).view(fmt.torch_dtype).float()
    codes = torch.arange(2**fmt.bits)
    sign = 1 - 2 * (codes >> (fmt.bits - 1))
    exponent = (codes >> fmt.mbits) & (2**fmt.ebits - 1)
    fraction = (codes & (2**fmt.mbits - 1)) / 2**fmt.mbits
    significand = torch.where(exponent > 0, 1 + fraction, fraction)
    return sign * significand * torch.exp2((exponent.clamp(min=1) - fmt.bias).float())


def max_normal(fmt: ElementFormat) -> float:  # FP6 and FP4 have no NaN or Inf codes
    if fmt.torch_dtype is not None:
        return torch.finfo(fmt.torch_dtype).max
    return (2 - 2.0**-fmt.mbits) * 2.0 ** (2**fmt.ebits - 1 - fmt.bias)


def emax(fmt: ElementFormat) -> int:  # the exponent of the largest normal value
    return math.floor(math.log2(max_normal(fmt)))


def round_to_element(x: torch.Tensor, fmt: ElementFormat) -> torch.Tensor:
    # The nearest value of the format, ties to even, saturating at the largest normal.
    magnitude = x.abs().clamp(max=max_normal(fmt))
    binade = (torch.frexp(magnitude)[1] - 1).clamp(min=1 - fmt.bias)
    quantum = torch.exp2((binade - fmt.mbits).float())
    return torch.copysign(torch.round(magnitude / quantum) * quantum, x)


def code_of(values: torch.Tensor, fmt: ElementFormat) -> torch.Tensor:
    # The code of each representable FP6 or FP4 value: magnitude index, sign bit.
    positive = element_values(fmt)[: 2 ** (fmt.bits - 1)].to(values.device)
    code = torch.searchsorted(positive, values.abs().contiguous())
    return (code | torch.signbit(values).int() << (fmt.bits - 1)).to(torch.uint8)
