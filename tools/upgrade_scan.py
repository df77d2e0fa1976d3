"""Find code that PyTorch 2.12 affects, and say what changed and how to fix it.

    python -m tools.upgrade_scan PATH [PATH ...]                  text, grouped by rule
    python -m tools.upgrade_scan PATH --format json|sarif|github  JSON, SARIF 2.1.0, GitHub annotations
    python -m tools.upgrade_scan PATH --select RULE,SEVERITY --ignore RULE,SEVERITY --exclude GLOB

It reads Python files, notebooks (Python kernels), shell scripts, Makefiles, CI YAML, Dockerfiles, requirements
files and Markdown code blocks. `# noqa: RULE` on a line suppresses that rule there. Exit status: 0 when nothing
was found, 1 when there are findings, 2 when a path is missing or a file cannot be read or parsed (each such file
gets a one-line message on stderr and the scan goes on), 3 on an internal error of the scanner.

The scanner's code lives in tools/snippets/upgrade_scan.py, the one source: the migration notebook carries a stamped
copy of it (so that it runs on Colab without this repository), and `python -m tools.stamp --check` keeps that copy
equal. This module imports the snippet and adds the command line; .pre-commit-hooks.yaml runs it as a hook.
"""

from __future__ import annotations

import sys

from tools.snippets.upgrade_scan import (
    NO_RULE,
    RULES,
    Finding,
    Report,
    exit_code,
    format_report,
    report_github,
    report_json,
    report_sarif,
    scan_notebook_json,
    scan_paths,
    scan_source,
    split_cell,
    upgrade_scan_main,
)

__all__ = ["NO_RULE", "RULES", "Finding", "Report", "exit_code", "format_report", "main", "report_github",
           "report_json", "report_sarif", "scan_notebook_json", "scan_paths", "scan_source", "split_cell"]


def main(argv: list[str] | None = None) -> int:
    return upgrade_scan_main(argv)


if __name__ == "__main__":
    sys.exit(main())
