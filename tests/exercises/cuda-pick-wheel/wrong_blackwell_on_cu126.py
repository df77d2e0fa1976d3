# Wrong: falls back to cu126 for any GPU, including Blackwell, which CUDA 12.6 does not build for
def choose_wheel(
    driver: str, capability: tuple[int, int], system: str = "Linux"
) -> str | None:
    if capability >= (7, 5) and driver_fits(driver, "13.0", system):
        return "cu130"
    if capability >= (5, 0) and driver_fits(driver, "12.6", system):
        return "cu126"
    return None
