"""The command line: `torch-upgrade-scan PATH ...` (also `python -m torch_upgrade_scan`)."""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
from pathlib import Path
from typing import TextIO

from torch_upgrade_scan import config as settings
from torch_upgrade_scan import fix
from torch_upgrade_scan.catalog import NEWEST, RELEASES, RULES, SEVERITIES, rules_up_to
from torch_upgrade_scan.reading import MAX_BYTES, NOTEBOOK_FACTOR
from torch_upgrade_scan.reports import FORMATS, exit_code, render
from torch_upgrade_scan.scan import scan_paths
from torch_upgrade_scan.version import VERSION

EPILOG = f"""\
exit status:
  0  nothing found at or above the --fail-on severity (or --exit-zero)
  1  findings at or above the --fail-on severity (default: any finding)
  2  a path is missing or empty, or a file with torch content cannot be read, decoded or parsed
     (one line each on stderr; the scan goes on)
  3  an internal error of the scanner

suppressing a finding on one line:
  # noqa                          every rule on this line (as flake8 and ruff read it)
  # noqa: torchscript, magma      the rules named; also a severity (# noqa: advisory), the
                                  rule's at --target (as --list-rules shows it);
                                  case-insensitive; exact names, no prefixes

configuration: [tool.torch-upgrade-scan] in pyproject.toml (the first one with that table,
walking up from the first PATH, else from the current folder; --config FILE names one):
  select, ignore (lists of rules or severities), exclude (globs, relative to that file's
  folder), per-file-ignores (table: glob = [rules or severities]), fail-on (breaks, warns
  or advisory), max-bytes, target (a release, as --target: target = "2.13").
  Command-line --select/--ignore/--fail-on/--max-bytes/--target replace the file's values;
  --exclude adds to its excludes.

--exclude GLOB is matched against each file's name, its path relative to each PATH scanned
(so 'tests/*' works on any PATH), the path as given, and its absolute path.

limits: files larger than --max-bytes (default {MAX_BYTES:,} bytes) are not parsed: one
without torch content is skipped, one with it is an error (exit 2), read in 1 MB chunks.
A notebook's file may be {NOTEBOOK_FACTOR} times larger (its outputs); the limit applies to its
code cells. Measured on 2 loaded CPU cores, one Python file dense with torch calls: 1 MB
took 7.4 s and 205 MB of memory; 7.4 MB (at --max-bytes 8000000) took 47 s and 1.4 GB.
Files without torch content are skipped before decoding or parsing, whatever their encoding.

fix mode: --diff prints the rewrites as a unified diff (exit 1 when there is one), --fix
writes them. Rules fixed: {", ".join(fix.FIXABLE)};
`--explain RULE` says what each does. Notebooks, Markdown and reStructuredText files are never rewritten:
a finding of these rules that --fix leaves needs a hand fix (--diff lists them on stderr, with why).
"""


def parser() -> argparse.ArgumentParser:
    command = argparse.ArgumentParser(
        prog="torch-upgrade-scan",
        description="Find code that PyTorch 2.12 affects, and the releases after it up to --target, with the fix "
        "for each. It reads Python files, "
        "notebooks, shell scripts, Makefiles, CI YAML, Dockerfiles, requirements files and the code blocks of "
        "Markdown, Quarto and reStructuredText files.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    command.add_argument("paths", nargs="*", metavar="PATH", help="files or folders to scan (default: .)")
    command.add_argument("--version", action="version", version=f"%(prog)s {VERSION}")
    command.add_argument(
        "--output-format",
        "--format",
        dest="format",
        choices=FORMATS,
        default="text",
        help="text (grouped by rule), concise (one line per finding: path:line:col: rule message), json, sarif "
        "or github (Actions annotations); default: text",
    )
    command.add_argument("--json", action="store_true", help="same as --output-format json")
    command.add_argument(
        "--annotate-notes",
        action="store_true",
        help="with --output-format github, also annotate the notes (code not parsed, files skipped)",
    )
    command.add_argument("--select", help="rules or severities to report, comma-separated")
    command.add_argument("--ignore", help="rules or severities to leave out, comma-separated")
    command.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="leave out matching files and folders (repeatable)",
    )
    command.add_argument(
        "--fail-on",
        choices=SEVERITIES,
        help="the least severity that exits 1 (default: advisory)",
    )
    command.add_argument(
        "--exit-zero",
        action="store_true",
        help="exit 0 whatever is found (2 and 3 still apply)",
    )
    command.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help="a pyproject.toml to read settings from",
    )
    command.add_argument(
        "--jobs",
        type=positive,
        default=os.cpu_count() or 1,
        help="processes that scan, this one among them (default: one per CPU)",
    )
    command.add_argument(
        "--max-bytes",
        type=positive,
        help=f"larger files are not parsed (default {MAX_BYTES})",
    )
    command.add_argument("--diff", action="store_true", help="print the safe rewrites as a unified diff")
    command.add_argument("--fix", action="store_true", help="apply the safe rewrites to the files")
    command.add_argument(
        "--target",
        metavar="RELEASE",
        help=f"the release you upgrade to: report the changes of the releases up to it "
        f"({', '.join(RELEASES)}; default: the configuration's target, else {NEWEST}), as ruff's target-version does",
    )
    command.add_argument("--list-rules", action="store_true", help="list the rules and exit")
    command.add_argument(
        "--explain",
        metavar="RULE",
        help="say what a rule finds and how to fix it, and exit",
    )
    return command


def positive(text: str) -> int:
    """An option's whole number of 1 or more (argparse names the option when this raises)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is less than 1")
    return value


def names(text: str | None, command: argparse.ArgumentParser, option: str) -> list[str] | None:
    """Comma-separated rule or severity names, lower-cased; an unknown one ends with the valid names."""
    if text is None:
        return None
    try:
        return settings.check_names([name.strip() for name in text.split(",") if name.strip()], option)
    except settings.ConfigError as error:
        command.error(str(error))


def write(text: str, stream: TextIO) -> None:
    """Print to stdout or stderr; a reader that has gone (`| head`) ends the output quietly."""
    try:
        print(text, file=stream, flush=True)
    except BrokenPipeError:
        # Python would report the closed pipe again when it flushes at exit: point the stream at nothing.
        os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())


def list_rules(target: str = NEWEST) -> str:
    """The rules of the releases up to `target`: each one's release, and its severity for an upgrade to it."""
    width = max(map(len, RULES))
    lines = [f"{'rule':{width}}  {'release':7}  {'severity':8}  {'fix mode':9}  what changed"]
    for rule in rules_up_to(target):
        mode = "--fix" if rule.id in fix.FIXABLE else "judgement"
        lines.append(f"{rule.id:{width}}  {rule.release:7}  {rule.severity_at(target):8}  {mode:9}  {rule.changed}")
    return "\n".join(lines)


def explain(rule_id: str) -> str:
    rule = RULES[rule_id]
    mode = (
        f"--fix {fix.FIXABLE[rule.id]}."
        if rule.id in fix.FIXABLE
        else "needs judgement: --fix leaves it alone, because the right rewrite depends on what the code means."
    )
    wrap = textwrap.TextWrapper(width=100, subsequent_indent="  ")
    return "\n".join(
        [
            f"{rule.id} ({rule.severity})",
            wrap.fill(f"What changed: {rule.changed}."),
            wrap.fill(f"Fix: {rule.fix}."),
            wrap.fill(f"Fix mode: {mode}"),
            wrap.fill(
                f"Suppress one line with `# noqa: {rule.id}`; everywhere with --ignore {rule.id} "
                f'or ignore = ["{rule.id}"] in [tool.torch-upgrade-scan].'
            ),
        ]
    )


def main(argv: list[str] | None = None) -> int:
    command = parser()
    args = command.parse_args(argv)
    if "" in args.paths:
        write("error: an empty PATH names no file or folder (use . for the current folder)", sys.stderr)
        return 2
    paths = args.paths or ["."]
    try:
        if args.target is not None:
            settings.check_target(args.target, "--target")
        found = args.config or settings.find_pyproject(Path(paths[0])) or settings.find_pyproject(Path.cwd())
        config = settings.load(found)
    except settings.ConfigError as error:
        write(f"error: {error}", sys.stderr)
        return 2
    target = args.target or config.target
    if args.list_rules:
        write(list_rules(target), sys.stdout)
        return 0
    if args.explain is not None:
        if args.explain.lower() not in RULES:
            command.error(f"--explain: unknown rule {args.explain!r} (valid: {', '.join(RULES)})")
        write(explain(args.explain.lower()), sys.stdout)
        return 0
    select = names(args.select, command, "--select")
    ignore = names(args.ignore, command, "--ignore")
    if args.fix and args.diff:
        command.error("--fix and --diff: choose one")
    try:
        report = scan_paths(
            paths,
            jobs=args.jobs,
            exclude=args.exclude + settings.exclude_patterns(config),
            select=config.select if select is None else select,
            ignore=config.ignore if ignore is None else ignore,
            max_bytes=args.max_bytes or config.max_bytes,
            target=target,
        )
        report.findings = [f for f in report.findings if not config.ignored(f)]
        if args.diff or args.fix:
            changes = fix.plan(report.findings)
            fixed = [f for _, _, done in changes.values() for f in done]
            report.findings = fix.unfixed(report.findings, fixed)
            by_hand = [f for f in report.findings if f.hand_fix]
            if args.diff:
                if changes:
                    write(fix.unified_diff(changes).rstrip("\n"), sys.stdout)
                write(f"{len(fixed)} finding(s) in {len(changes)} file(s) can be fixed with --fix", sys.stderr)
                for f in by_hand:
                    write(f"{f.where()}: {f.rule} {f.detail}: needs a hand fix: {f.hand_fix}", sys.stderr)
                return 1 if changes else 0
            report.errors += fix.apply(changes)
            write(f"fixed {len(fixed)} finding(s) in {len(changes)} file(s); {len(by_hand)} need a hand fix",
                  sys.stderr)
    except Exception as error:  # a scanner bug outside any one file
        write(f"internal error: {type(error).__name__}: {error}", sys.stderr)
        return 3
    write(render(report, "json" if args.json else args.format, notes=args.annotate_notes), sys.stdout)
    for message in report.errors + report.internal:
        write(f"error: {message}", sys.stderr)
    return exit_code(report, None if args.exit_zero else (args.fail_on or config.fail_on))


def upgrade_scan_main(paths, output: str = "text", select=(), ignore=(), exclude=()) -> int:
    """Scan, print the report, return the exit code (the command line's core, without its configuration and
    fix mode: what the course's migration lesson calls)."""
    report = scan_paths(paths, exclude=exclude, select=select, ignore=ignore)
    print(render(report, output))
    for message in report.errors + report.internal:
        print(f"error: {message}", file=sys.stderr)
    return exit_code(report)
