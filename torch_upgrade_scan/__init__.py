"""Find code, notebooks, scripts, CI files and requirements that PyTorch 2.12 affects.

The engine is one standard-library module, torch_upgrade_scan/scan.py (the course's migration notebook carries a
stamped copy of it, so that it runs alone on Colab); cli.py, config.py and fix.py add the command line, the
pyproject.toml settings and fix mode.
"""

from torch_upgrade_scan.scan import (
    NO_RULE,
    RULES,
    VERSION,
    Finding,
    Report,
    exit_code,
    format_report,
    render,
    report_github,
    report_json,
    report_sarif,
    scan_notebook_json,
    scan_paths,
    scan_source,
)

__version__ = VERSION
__all__ = [
    "NO_RULE",
    "RULES",
    "Finding",
    "Report",
    "exit_code",
    "format_report",
    "render",
    "report_github",
    "report_json",
    "report_sarif",
    "scan_notebook_json",
    "scan_paths",
    "scan_source",
]
