# Wrong: returns the device type as it is, so a ROCm GPU is called "cuda"
def platform_of(device_type: str, hip_version: str | None) -> str:
    return device_type
