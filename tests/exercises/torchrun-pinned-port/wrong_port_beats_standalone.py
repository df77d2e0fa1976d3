# Wrong: let a pinned port win over --standalone, whose endpoint localhost:0 takes a free port
def pinned_port(options: tuple[str, ...], env: dict[str, str]) -> str | None:
    for at, option in enumerate(options):
        name, equals, value = option.partition("=")
        if name in ("--master-port", "--master_port"):
            return value if equals else options[at + 1]
    return None if "--standalone" in options else env.get("PET_MASTER_PORT")
