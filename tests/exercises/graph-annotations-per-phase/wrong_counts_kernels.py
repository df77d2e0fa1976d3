# Wrong: counted the kernels of each phase instead of summing their durations
def time_per_phase(trace: dict) -> dict[str, float]:
    totals: dict[str, float] = {}
    for event in trace["traceEvents"]:
        args = event.get("args", {})
        if event.get("cat") != "kernel" or not args.get("graph node id"):
            continue
        phase = args.get("phase", "unannotated")
        totals[phase] = totals.get(phase, 0.0) + 1
    return totals
