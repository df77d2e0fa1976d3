# Wrong: decides by the HIP version alone, so a ROCm build without a GPU is called "rocm"
def platform_of(device_type: str, hip_version: str | None) -> str:
    return "rocm" if hip_version else device_type
