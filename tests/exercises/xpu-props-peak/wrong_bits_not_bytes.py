# Wrong: forgets to divide the bus width by 8, giving bits per second
def peak_from_properties(props, device_type: str) -> float | None:
    hz_per_unit = {"xpu": 1e6, "cuda": 1e3}.get(device_type)
    clock = getattr(props, "memory_clock_rate", 0)
    width = getattr(props, "memory_bus_width", 0)
    if hz_per_unit is None or not clock or not width:
        return None
    return clock * hz_per_unit * 2 * width
