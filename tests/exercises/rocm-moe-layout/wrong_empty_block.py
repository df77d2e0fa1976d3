# Wrong: rounds each block up to the alignment but lets an empty block take no rows
def received_layout(
    send: list[list[int]], rank: int, experts: int, align: int = 1
) -> tuple[list[int], list[int]]:
    world = len(send)
    splits = [send[i][rank * experts + e] for e in range(experts) for i in range(world)]
    offsets, start = [], 0
    for e in range(experts):
        block = splits[e * world : (e + 1) * world]
        offsets += [start + sum(block[:i]) for i in range(world)]
        start += -(-sum(block) // align) * align
    return splits, offsets
