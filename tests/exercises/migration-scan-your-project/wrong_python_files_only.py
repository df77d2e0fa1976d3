# Wrong: scans only the .py files, so notebooks and requirements files are left out
from collections import Counter


def rule_counts(folder):
    report = scan_paths(sorted(Path(folder).glob("*.py")))
    return dict(Counter(f.rule for f in report.findings))
