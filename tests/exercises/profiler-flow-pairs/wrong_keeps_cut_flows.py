# Wrong: kept a flow whose backward end is missing, with None in its place
def fwd_bwd_pairs(events: list) -> dict[int, tuple]:
    ends: dict[int, dict[str, object]] = {}
    for event in events:
        if event.flow_id and event.flow_type == FORWARD_BACKWARD:
            end = "forward" if event.flow_start else "backward"
            ends.setdefault(event.flow_id, {})[end] = event
    return {
        flow: (pair.get("forward"), pair.get("backward"))
        for flow, pair in ends.items()
    }
