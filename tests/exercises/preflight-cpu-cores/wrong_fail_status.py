# Wrong: reports too few cores as FAIL, although the day still works (it should warn)
def check_cpu_cores(minimum: int = 2) -> Check:
    cores = os.cpu_count() or 1
    if cores >= minimum:
        return Check("CPU cores", "ok", f"{cores} cores")
    fix = f"fewer than {minimum} cores: the lessons will run slower"
    return Check("CPU cores", "FAIL", f"{cores} cores", fix)
