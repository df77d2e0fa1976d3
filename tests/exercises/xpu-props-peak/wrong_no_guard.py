# Wrong: reads the fields directly, so a torch without them raises AttributeError
def peak_from_properties(props, device_type: str) -> float | None:
    hz_per_unit = {"xpu": 1e6, "cuda": 1e3}.get(device_type)
    if hz_per_unit is None:
        return None
    return props.memory_clock_rate * hz_per_unit * 2 * props.memory_bus_width / 8
