# Wrong: assumes the header is always there, so a failed nvidia-smi raises AttributeError
def cuda_version_tuple(header: str) -> tuple[int, ...] | None:
    found = re.search(r"CUDA Version:\s*([\d.]+)", header)
    return tuple(int(part) for part in found.group(1).split("."))
