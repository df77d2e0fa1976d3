# Wrong: knew only the --master-port spelling, not torchrun's --master_port alias
def pinned_port(options: tuple[str, ...], env: dict[str, str]) -> str | None:
    if "--master-port" in options:
        return options[options.index("--master-port") + 1]
    return env.get("PET_MASTER_PORT")
