"""The run records' command line: check them, report their timings, print the status they add up to.

    python -m tools.records report DIR      the timing report of the records under DIR
    python -m tools.records check [DIR]     validate records against tools/schemas/run-record.schema.json
                                            (default: results/runs)
    python -m tools.records status          print the status table of results/runs
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tools.course import CourseError
from tools.records import runs, status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.records", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    report = commands.add_parser("report", help="the timing report of the records under a folder")
    report.add_argument("folder", type=Path)
    check = commands.add_parser("check", help="validate the records under a folder")
    check.add_argument("folder", type=Path, nargs="?", default=runs.RUNS)
    commands.add_parser("status", help="print where each notebook has run (results/runs)")
    args = parser.parse_args(argv)
    try:
        if args.command == "report":
            if not args.folder.is_dir():
                raise CourseError(f"{args.folder}: no such folder of run records")
            records = [record for _, record in runs.load_records(args.folder)]
            print("\n".join(status.timing_report(records)) or f"no run records under {args.folder}")
        elif args.command == "check":
            loaded = runs.load_records(args.folder)
            print(f"{len(loaded)} run record(s) under {args.folder} follow schema {runs.SCHEMA}")
        else:
            for cell in status.cells(runs.load_records(runs.RUNS)):
                print(f"{cell.state:6} {cell.platform:5} torch {cell.release:8} {cell.date} "
                      f"{cell.runs} run(s) {cell.notebook}")
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
