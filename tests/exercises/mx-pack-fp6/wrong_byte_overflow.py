# Wrong: shifted the codes into a uint8 word, so the high bits overflow and are lost
def pack_fp6(codes: torch.Tensor) -> torch.Tensor:
    quads = codes.unflatten(-1, (-1, 4))
    word = (
        quads[..., 0]
        | (quads[..., 1] << 6)
        | (quads[..., 2] << 12)
        | (quads[..., 3] << 18)
    )  # 24 bits
    return (
        torch.stack([word & 0xFF, (word >> 8) & 0xFF, (word >> 16) & 0xFF], dim=-1)
        .flatten(-2)
        .to(torch.uint8)
    )


def unpack_fp6(packed: torch.Tensor) -> torch.Tensor:
    triples = packed.to(torch.int32).unflatten(-1, (-1, 3))
    word = triples[..., 0] | (triples[..., 1] << 8) | (triples[..., 2] << 16)
    return (
        torch.stack([(word >> shift) & 0x3F for shift in (0, 6, 12, 18)], dim=-1)
        .flatten(-2)
        .to(torch.uint8)
    )
