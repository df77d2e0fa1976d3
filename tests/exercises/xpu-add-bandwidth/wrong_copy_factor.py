# Wrong: counts two tensors as for a copy, forgetting that an addition reads two and writes one
def add_bandwidth(numel: int, element_size: int, seconds: float) -> float:
    return 2 * numel * element_size / seconds
