# Wrong: ignores the system and always checks the Linux driver floor
def choose_wheel(
    driver: str, capability: tuple[int, int], system: str = "Linux"
) -> str | None:
    if capability >= (7, 5) and driver_fits(driver, "13.0", "Linux"):
        return "cu130"
    if (5, 0) <= capability <= (9, 0) and driver_fits(driver, "12.6", "Linux"):
        return "cu126"
    return None
