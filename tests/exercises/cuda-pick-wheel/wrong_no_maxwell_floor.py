# Wrong: gives cu126 to any GPU up to Hopper, forgetting that CUDA 12.6 builds start at Maxwell (5.0)
def choose_wheel(
    driver: str, capability: tuple[int, int], system: str = "Linux"
) -> str | None:
    if capability >= (7, 5) and driver_fits(driver, "13.0", system):
        return "cu130"
    if capability <= (9, 0) and driver_fits(driver, "12.6", system):
        return "cu126"
    return None
