# Wrong: assumed the port of releases before 2.12, 29500, when none is pinned
def pinned_port(options: tuple[str, ...], env: dict[str, str]) -> str | None:
    if "--master-port" in options:
        return options[options.index("--master-port") + 1]
    return env.get("PET_MASTER_PORT", "29500")
