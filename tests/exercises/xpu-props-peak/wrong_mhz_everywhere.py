# Wrong: reads every clock as MHz, although CUDA reports kHz
def peak_from_properties(props, device_type: str) -> float | None:
    clock = getattr(props, "memory_clock_rate", 0)
    width = getattr(props, "memory_bus_width", 0)
    if device_type not in ("xpu", "cuda") or not clock or not width:
        return None
    return clock * 1e6 * 2 * width / 8
