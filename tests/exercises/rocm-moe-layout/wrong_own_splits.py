# Wrong: reads this rank's own send counts instead of what the other ranks send to it
def received_layout(
    send: list[list[int]], rank: int, experts: int, align: int = 1
) -> tuple[list[int], list[int]]:
    world = len(send)
    splits = [send[rank][i * experts + e] for e in range(experts) for i in range(world)]
    offsets, start = [], 0
    for e in range(experts):
        block = splits[e * world : (e + 1) * world]
        offsets += [start + sum(block[:i]) for i in range(world)]
        start += max(-(-sum(block) // align) * align, align)
    return splits, offsets
