# Wrong: looked at the command line only, not at the PET_ variable torchrun reads
def pinned_port(options: tuple[str, ...], env: dict[str, str]) -> str | None:
    if "--master-port" in options:
        return options[options.index("--master-port") + 1]
    return None
