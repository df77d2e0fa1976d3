# Wrong: took the first event seen of each flow as its forward end, instead of reading flow_start
def fwd_bwd_pairs(events: list) -> dict[int, tuple]:
    ends: dict[int, list] = {}
    for event in events:
        if event.flow_id and event.flow_type == FORWARD_BACKWARD:
            ends.setdefault(event.flow_id, []).append(event)
    return {flow: (pair[0], pair[1]) for flow, pair in ends.items() if len(pair) == 2}
