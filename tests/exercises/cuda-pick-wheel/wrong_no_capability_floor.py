# Wrong: picks cu130 whenever the driver fits, forgetting that CUDA 13 dropped pre-Turing GPUs
def choose_wheel(
    driver: str, capability: tuple[int, int], system: str = "Linux"
) -> str | None:
    if driver_fits(driver, "13.0", system):
        return "cu130"
    if driver_fits(driver, "12.6", system):
        return "cu126"
    return None
