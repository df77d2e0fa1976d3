# Wrong: warns without saying what it means for the day (no fix text)
def check_cpu_cores(minimum: int = 2) -> Check:
    cores = os.cpu_count() or 1
    status = "ok" if cores >= minimum else "warn"
    return Check("CPU cores", status, f"{cores} cores")
