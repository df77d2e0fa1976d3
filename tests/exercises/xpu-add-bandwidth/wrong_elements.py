# Wrong: forgets the element size, so the result is elements per second, not bytes
def add_bandwidth(numel: int, element_size: int, seconds: float) -> float:
    return 3 * numel / seconds
