# Wrong: counts 2 bits for every entry of the dense matrix, not for every kept value
def semi_structured_bytes(rows: int, cols: int, element_size: int) -> float:
    return rows * cols // 2 * element_size + rows * cols * 2 / 8
