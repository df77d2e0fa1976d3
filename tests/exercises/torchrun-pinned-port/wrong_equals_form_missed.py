# Wrong: read only `--master-port 29611`, not `--master-port=29611`
def pinned_port(options: tuple[str, ...], env: dict[str, str]) -> str | None:
    if "--standalone" in options:
        return None
    for at, option in enumerate(options):
        if option in ("--master-port", "--master_port"):
            return options[at + 1]
    return env.get("PET_MASTER_PORT")
