# Wrong: ignores major_align, so each expert's block starts right after the previous one
def received_layout(
    send: list[list[int]], rank: int, experts: int, align: int = 1
) -> tuple[list[int], list[int]]:
    world = len(send)
    splits = [send[i][rank * experts + e] for e in range(experts) for i in range(world)]
    offsets = [sum(splits[:k]) for k in range(len(splits))]
    return splits, offsets
