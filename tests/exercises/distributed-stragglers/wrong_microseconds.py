# Wrong: converted nanoseconds to milliseconds by dividing by 1e3
def stragglers(
    recorded: pd.DataFrame, threshold_ms: float
) -> dict[tuple[str, int], tuple[int, float]]:
    found = {}
    for key, collective in recorded.groupby(["group", "seq"]):
        last = collective.loc[collective["created_ns"].idxmax()]
        lag_ms = (last["created_ns"] - collective["created_ns"].min()) / 1e3
        if lag_ms > threshold_ms:
            found[key] = (int(last["rank"]), lag_ms)
    return found
