# Wrong: paired each forward op with the next backward op of the matching name, not by flow id
def fwd_bwd_pairs(events: list) -> dict[int, tuple]:
    linked = sorted(
        (e for e in events if e.flow_id and e.flow_type == FORWARD_BACKWARD),
        key=lambda e: e.time_range.start,
    )
    backward = [e for e in linked if not e.flow_start]
    pairs = {}
    for forward in (e for e in linked if e.flow_start):
        op = forward.name.split("::")[-1].replace("_", "")
        match = next((b for b in backward if b.name.lower().startswith(op)), None)
        if match is not None:
            backward.remove(match)
            pairs[forward.flow_id] = (forward, match)
    return pairs
