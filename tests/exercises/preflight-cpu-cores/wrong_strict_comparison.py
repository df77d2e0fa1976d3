# Wrong: uses > instead of >=, so exactly the minimum number of cores warns
def check_cpu_cores(minimum: int = 2) -> Check:
    cores = os.cpu_count() or 1
    if cores > minimum:
        return Check("CPU cores", "ok", f"{cores} cores")
    fix = f"fewer than {minimum} cores: the lessons will run slower"
    return Check("CPU cores", "warn", f"{cores} cores", fix)
