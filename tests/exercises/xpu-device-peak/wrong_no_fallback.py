# Wrong: answers None for every product missing from the table, even when its properties give a figure
def device_peak(name: str, props, device_type: str) -> float | None:
    if name not in SKU_PEAKS:
        return None
    card_peak, stacks = SKU_PEAKS[name]
    return card_peak / stacks
