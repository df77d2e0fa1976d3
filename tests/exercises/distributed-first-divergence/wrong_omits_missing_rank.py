# Wrong: left a rank without an entry out of the returned names instead of giving it None
def first_divergence(
    dumps: dict[int, dict],
) -> tuple[int, dict[int, str | None]] | None:
    by_group: dict[str, dict[int, dict[int, str]]] = {}
    for rank, dump in dumps.items():
        for entry in dump["entries"]:
            names = by_group.setdefault(entry["process_group"][0], {}).setdefault(
                entry["collective_seq_id"], {}
            )
            names[rank] = entry["profiling_name"]
    found = []
    for per_seq in by_group.values():
        for seq in sorted(per_seq):
            names = dict(per_seq[seq])
            if len(set(names.values())) > 1 or len(names) < len(dumps):
                found.append((seq, names))
                break
    return min(found, key=lambda item: item[0]) if found else None
