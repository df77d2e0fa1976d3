# Wrong: grouped graph kernels by the lane they were moved to, not by their phase
def time_per_phase(trace: dict) -> dict[str, float]:
    totals: dict[str, float] = {}
    for event in trace["traceEvents"]:
        args = event.get("args", {})
        if event.get("cat") != "kernel" or not args.get("graph node id"):
            continue
        lane = f"stream {event['tid']}"
        totals[lane] = totals.get(lane, 0.0) + event["dur"]
    return totals
