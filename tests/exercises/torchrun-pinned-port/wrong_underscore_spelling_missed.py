# Wrong: knew only the spelling --master-port, not torchrun's other one, --master_port
def pinned_port(options: tuple[str, ...], env: dict[str, str]) -> str | None:
    if "--standalone" in options:
        return None
    for at, option in enumerate(options):
        name, equals, value = option.partition("=")
        if name == "--master-port":
            return value if equals else options[at + 1]
    return env.get("PET_MASTER_PORT")
