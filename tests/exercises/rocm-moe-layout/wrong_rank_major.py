# Wrong: keeps the senders' rank-major order instead of laying the chunks out expert by expert
def received_layout(
    send: list[list[int]], rank: int, experts: int, align: int = 1
) -> tuple[list[int], list[int]]:
    world = len(send)
    splits = [send[i][rank * experts + e] for i in range(world) for e in range(experts)]
    offsets = [sum(splits[:k]) for k in range(len(splits))]
    return splits, offsets
