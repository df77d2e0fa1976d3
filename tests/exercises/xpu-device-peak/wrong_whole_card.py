# Wrong: returns the whole card's peak, although a torch device is one stack
def device_peak(name: str, props, device_type: str) -> float | None:
    if name in SKU_PEAKS:
        return SKU_PEAKS[name][0]
    return peak_from_properties(props, device_type)
