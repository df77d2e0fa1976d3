# Wrong: divides by 8 as in the bus-width formula, although element_size is already in bytes
def add_bandwidth(numel: int, element_size: int, seconds: float) -> float:
    return 3 * numel * element_size / 8 / seconds
