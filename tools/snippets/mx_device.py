# Where the MX arithmetic runs: a device qualifies when this torch can cast to float8
# and read E8M0 there (MPS has no float8 dtypes).
# Source: tools/snippets/mx_device.py; `make stamp` copies it here.
def float8_works_on(candidate: torch.device) -> bool:
    try:
        probe = torch.tensor([1.0, 3.0], device=candidate)
        probe.to(torch.float8_e4m3fn).float()
        probe.to(torch.float8_e5m2).float()
        scale = torch.tensor([127], dtype=torch.uint8, device=candidate)
        scale.view(torch.float8_e8m0fnu).float()
        torch.frexp(probe)
    except (TypeError, RuntimeError, NotImplementedError):
        return False
    return True


mx_device = device if float8_works_on(device) else torch.device("cpu")
if mx_device != device:
    skip(f"no float8 dtypes on {device.type}; the MX arithmetic runs on the CPU.")
print(f"MX arithmetic runs on: {mx_device}")
