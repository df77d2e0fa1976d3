# Wrong: names the platform after the runtime ("hip") instead of "rocm"
def platform_of(device_type: str, hip_version: str | None) -> str:
    if device_type == "cuda" and hip_version is not None:
        return "hip"
    return device_type
