# Wrong: took MASTER_PORT in the environment for a pin, as torchrun's workers see it
def pinned_port(options: tuple[str, ...], env: dict[str, str]) -> str | None:
    if "--master-port" in options:
        return options[options.index("--master-port") + 1]
    return env.get("PET_MASTER_PORT") or env.get("MASTER_PORT")
