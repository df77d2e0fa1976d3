# Wrong: counts only the kept values and forgets the positions stored beside them
def semi_structured_bytes(rows: int, cols: int, element_size: int) -> float:
    return rows * cols // 2 * element_size
