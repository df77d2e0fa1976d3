# Wrong: reads the driver version instead of the CUDA version the driver supports
def cuda_version_tuple(header: str) -> tuple[int, ...] | None:
    found = re.search(r"Driver Version:\s*([\d.]+)", header)
    return tuple(int(part) for part in found.group(1).split(".")) if found else None
