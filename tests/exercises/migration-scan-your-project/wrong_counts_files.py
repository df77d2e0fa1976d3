# Wrong: counts the files each rule is found in, not the places
def rule_counts(folder):
    counts = {}
    for rule, _ in {(f.rule, f.path) for f in scan_paths([folder]).findings}:
        counts[rule] = counts.get(rule, 0) + 1
    return counts
