# Wrong: stores each position in a whole byte instead of 2 bits
def semi_structured_bytes(rows: int, cols: int, element_size: int) -> float:
    kept = rows * cols // 2
    return kept * element_size + kept
