# Wrong: paired every flow, not only the forward-backward ones (flow_type 1)
def fwd_bwd_pairs(events: list) -> dict[int, tuple]:
    ends: dict[int, dict[str, object]] = {}
    for event in events:
        if event.flow_id:
            end = "forward" if event.flow_start else "backward"
            ends.setdefault(event.flow_id, {})[end] = event
    return {
        flow: (pair["forward"], pair["backward"])
        for flow, pair in ends.items()
        if len(pair) == 2
    }
