# Wrong: returned the port as an int
def pinned_port(options: tuple[str, ...], env: dict[str, str]) -> int | None:
    if "--master-port" in options:
        return int(options[options.index("--master-port") + 1])
    port = env.get("PET_MASTER_PORT")
    return int(port) if port else None
