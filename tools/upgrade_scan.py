"""Find code that PyTorch 2.12 affects, and say what changed and how to fix it.

    python -m tools.upgrade_scan PATH [PATH ...]          scan .py files, .ipynb notebooks and folders
    python -m tools.upgrade_scan PATH [PATH ...] --json   the same findings as JSON

Exit status: 0 when nothing was found, 1 when there are findings, 2 when a path is missing or a file does not
parse (each such file gets a one-line message and the scan goes on).

The scanner's code lives in tools/snippets/upgrade_scan.py, the one source: the migration notebook carries a stamped
copy of it (so that it runs on Colab without this repository), and `python -m tools.stamp --check` keeps that copy
equal. This module imports the snippet and adds the command line.
"""

from __future__ import annotations

import sys

from tools.snippets.upgrade_scan import (
    RULES,
    Finding,
    Report,
    exit_code,
    format_report,
    scan_notebook_json,
    scan_paths,
    scan_source,
    split_cell,
    upgrade_scan_main,
)

__all__ = ["RULES", "Finding", "Report", "exit_code", "format_report", "main", "scan_notebook_json", "scan_paths",
           "scan_source", "split_cell"]


def main(argv: list[str] | None = None) -> int:
    return upgrade_scan_main(argv)


if __name__ == "__main__":
    sys.exit(main())
