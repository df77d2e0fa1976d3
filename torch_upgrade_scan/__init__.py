"""Find code, notebooks, scripts, CI files and requirements that PyTorch 2.12 affects.

The engine reads files (reading.py, notebook.py), parses Python once (parse.py) and applies the rules (rules/,
one module per family, after the keyword pre-filter of prefilter.py); scan.py walks the paths and collects a
Report, reports.py writes it in each format. cli.py, config.py and fix.py add the command line, the
pyproject.toml settings and fix mode. README.md says what it finds and how to use it.
"""

from torch_upgrade_scan.catalog import NO_RULE, RULES
from torch_upgrade_scan.cli import upgrade_scan_main
from torch_upgrade_scan.findings import Finding, Report
from torch_upgrade_scan.reports import exit_code, format_report, render, report_github, report_json, report_sarif
from torch_upgrade_scan.scan import scan_notebook_json, scan_paths, scan_source
from torch_upgrade_scan.version import VERSION

__version__ = VERSION
__all__ = [
    "NO_RULE",
    "RULES",
    "VERSION",
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
    "upgrade_scan_main",
]
