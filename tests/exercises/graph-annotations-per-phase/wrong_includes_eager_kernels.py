# Wrong: summed every kernel, also the eager ones that ran outside any graph
def time_per_phase(trace: dict) -> dict[str, float]:
    totals: dict[str, float] = {}
    for event in trace["traceEvents"]:
        if event.get("cat") != "kernel":
            continue
        phase = event.get("args", {}).get("phase", "unannotated")
        totals[phase] = totals.get(phase, 0.0) + event["dur"]
    return totals
