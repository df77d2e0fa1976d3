# Wrong: converts the version to a float, so 12.10 reads as 12.1 and compares below 12.9
def cuda_version_tuple(header: str) -> tuple[int, ...] | None:
    found = re.search(r"CUDA Version:\s*([\d.]+)", header)
    return float(found.group(1)) if found else None
