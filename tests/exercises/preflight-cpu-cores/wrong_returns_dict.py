# Wrong: returns a plain dict instead of a Check, so the table cannot hold it
def check_cpu_cores(minimum: int = 2) -> dict:
    cores = os.cpu_count() or 1
    status = "ok" if cores >= minimum else "warn"
    return {"name": "CPU cores", "status": status, "found": f"{cores} cores"}
