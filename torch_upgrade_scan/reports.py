"""The report in each output format (text, concise, json, sarif, github) and the exit code it gives."""

import json
from pathlib import Path

from torch_upgrade_scan.catalog import ADVISORY, BREAKS, RULES, SEVERITIES, WARNS
from torch_upgrade_scan.findings import Finding, Report, severity_of
from torch_upgrade_scan.version import VERSION

FORMATS = ("text", "concise", "json", "sarif", "github")
MAX_NOTES_SHOWN = 20
LEVELS = {BREAKS: "error", WARNS: "warning", ADVISORY: "note"}


def format_report(report: Report) -> str:
    """Text grouped by rule: what changed once, then each place, then the fixes;
    then the notes (files read in part or skipped) and a summary."""
    lines = []
    for rule in RULES.values():
        found = [f for f in report.findings if f.rule == rule.id]
        if not found:
            continue
        lines.append(f"[{rule.id}] {rule.severity}: {rule.changed}.")
        for f in found:
            tag = "" if severity_of(f) == rule.severity else f" ({severity_of(f)})"
            lines.append(f"  {f.where()}: {f.detail}{tag}{needs_hand_fix(f)}")
        fixes: dict = {}
        for f in found:
            fixes.setdefault(f.fix or rule.fix, []).append(f.detail)
        for fix, details in fixes.items():
            apis = sorted(set(details))
            label = ", ".join(apis) if len(apis) < 4 else f"{len(apis)} APIs"
            lines.append(
                f"  fix ({label}): {fix}." if len(fixes) > 1 else f"  fix: {fix}."
            )
    if report.skipped_folders:
        shown = ", ".join(report.skipped_folders[:5])
        more = len(report.skipped_folders) - 5
        lines.append(
            f"skipped folders: {shown}" + (f" and {more} more" if more > 0 else "")
        )
    return "\n".join(lines + tail(report))


def tail(report: Report) -> list[str]:
    """The notes (the first MAX_NOTES_SHOWN) and the summary line."""
    lines = [f"note: {note}" for note in report.notes[:MAX_NOTES_SHOWN]]
    if len(report.notes) > MAX_NOTES_SHOWN:
        more = len(report.notes) - MAX_NOTES_SHOWN
        lines.append(f"note: {more} more note(s); --format json lists them all")
    rate = report.files / report.seconds if report.seconds else 0.0
    lines.append(
        f"{len(report.findings)} finding(s) in {report.files} file(s), "
        f"{len(report.errors) + len(report.internal)} error(s), "
        f"{len(report.notes)} note(s); {report.seconds:.2f} s, {rate:.0f} files/s"
    )
    return lines


def format_concise(report: Report) -> str:
    """One line per finding, as ruff's concise format writes it:
    `path:line:col: rule message [severity]`; then the notes and the summary."""
    lines = [
        f"{f.where()}: {f.rule} {f.detail}: {f.fix or RULES[f.rule].fix}"
        f" [{severity_of(f)}]{needs_hand_fix(f)}"
        for f in report.findings
    ]
    return "\n".join(lines + tail(report))


def report_json(report: Report) -> dict:
    return {
        "findings": [
            f.to_dict()
            | {"severity": severity_of(f), "fix": f.fix or RULES[f.rule].fix}
            for f in report.findings
        ],
        "errors": report.errors + report.internal,
        "notes": report.notes,
        "skipped_folders": report.skipped_folders,
        "files": report.files,
        "seconds": round(report.seconds, 3),
    }


def needs_hand_fix(f: Finding) -> str:
    """" (needs a hand fix: why)" for a finding that --fix left, "" elsewhere."""
    return f" (needs a hand fix: {f.hand_fix})" if f.hand_fix else ""


def in_cell(f: Finding) -> str:
    """The prefix "cell 3, line 2: " of a notebook finding's message where the place is the .ipynb file's line
    (SARIF, GitHub) ("cell 3, line 2, column 5: " where the column is not 1), "" elsewhere."""
    if f.cell is None:
        return ""
    column = "" if f.column == 1 else f", column {f.column}"
    return f"cell {f.cell}, line {f.line}{column}: "


def report_sarif(report: Report) -> dict:
    """SARIF 2.1.0, as GitHub code scanning reads it. A notebook finding points
    at the .ipynb file, at the JSON line that holds the cell's line (line 1
    when the JSON is not one source line per line); the message and the
    properties name the cell and the line in it."""
    rules = [
        {
            "id": r.id,
            "shortDescription": {"text": r.changed},
            "help": {"text": r.fix},
            "defaultConfiguration": {"level": LEVELS[r.severity]},
        }
        for r in RULES.values()
    ]
    results = []
    for f in report.findings:
        region = {"startLine": f.on_disk()}
        properties = {}
        if f.cell is None:
            region["startColumn"] = f.column
        else:
            properties = {"cell": f.cell, "cellLine": f.line, "cellColumn": f.column}
        result = {
            "ruleId": f.rule,
            "level": LEVELS[severity_of(f)],
            "message": {
                "text": f"{in_cell(f)}{f.detail}: {f.fix or RULES[f.rule].fix}"
            },
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": Path(f.path).as_posix()},
                        "region": region,
                    }
                }
            ],
        }
        if properties:
            result["properties"] = properties
        results.append(result)
    notifications = [
        {"level": "error", "message": {"text": text}}
        for text in report.errors + report.internal
    ] + [{"level": "note", "message": {"text": text}} for text in report.notes]
    driver = {
        "name": "torch-upgrade-scan",
        "version": VERSION,
        "informationUri": "https://github.com/every-accelerator/pytorch-2.12-course",
        "rules": rules,
    }
    invocation = {
        "executionSuccessful": not report.internal,
        "toolExecutionNotifications": notifications,
    }
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": driver},
                "invocations": [invocation],
                "results": results,
            }
        ],
    }


def report_github(report: Report, notes: bool = False) -> str:
    """GitHub Actions workflow commands: one annotation per finding (a notebook
    finding at its JSON line, the cell and line named in the message); with
    `notes`, one notice per note too (else they are left to the text report)."""
    kinds = {BREAKS: "error", WARNS: "warning", ADVISORY: "notice"}

    def escape(text: str, prop: bool = False) -> str:
        text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        return text.replace(":", "%3A").replace(",", "%2C") if prop else text

    annotations = [
        f"::{kinds[severity_of(f)]} file={escape(f.path, True)},line={f.on_disk()}"
        + ("" if f.cell is not None else f",col={f.column}")
        + f",title={escape('2.12 ' + f.rule, True)}::"
        f"{escape(in_cell(f) + f.detail + ': ' + (f.fix or RULES[f.rule].fix))}"
        for f in report.findings
    ]
    annotations += [
        f"::notice title=torch-upgrade-scan note::{escape(note)}"
        for note in (report.notes if notes else [])
    ]
    return "\n".join(annotations)


def render(report: Report, output: str = "text", notes: bool = False) -> str:
    """The report in one of FORMATS (`notes`: annotate the notes on GitHub)."""
    if output == "json":
        return json.dumps(report_json(report), indent=1)
    if output == "sarif":
        return json.dumps(report_sarif(report), indent=1)
    if output == "github":
        return report_github(report, notes)
    if output == "concise":
        return format_concise(report)
    return format_report(report)


def exit_code(report: Report, fail_on: str | None = ADVISORY) -> int:
    """0 clean; 1 a finding of severity `fail_on` or worse (never when None);
    2 a path or file could not be read or parsed; 3 an internal error (a
    scanner bug). The highest applies."""
    if report.internal:
        return 3
    if report.errors:
        return 2
    if fail_on is None:
        return 0
    worst = SEVERITIES.index(fail_on)
    failing = [f for f in report.findings if SEVERITIES.index(severity_of(f)) <= worst]
    return 1 if failing else 0
