# Wrong: ignores the table and trusts the per-channel properties
def device_peak(name: str, props, device_type: str) -> float | None:
    return peak_from_properties(props, device_type)
