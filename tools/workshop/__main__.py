"""The workshop kit: tracks by room and day, lesson timings, the exercise index, Colab runtimes, student notebooks.

    python -m tools.workshop schedule              print every track (room x half/full day)
    python -m tools.workshop pages                 write the generated parts of chapters/workshop.md and
                                                   chapters/exercises.md
    python -m tools.workshop timings RECORDS       print each lesson's teaching minutes by the timing rule, from
                                                   run records (a JSON file or a folder of them)
    python -m tools.workshop timings RECORDS --write [NOTEBOOK ...]
                                                   also write them into the notebooks' metadata and headers
    python -m tools.workshop colab [--check]       give notebooks that need an NVIDIA GPU Colab's GPU runtime
                                                   metadata (and the others none); --check only reports
    python -m tools.workshop student [OUT]         write student notebooks (solutions replaced by a stub) to OUT
                                                   (default: _build/student/)
    python -m tools.workshop student OUT --branch  every copy, and beside them what the student branch holds:
                                                   binder/, the scanner and pyproject.toml, results/*.json
    python -m tools.workshop student [OUT] --track ROOM --day half|full
                                                   only the notebooks of that room's day (its lessons and the
                                                   pre-flight, its DAY set), and the day's handout beside them
                                                   (index.md, index.html); ROOM is a key of tools/workshop/rooms.yml

Everything is computed from each notebook's `course` metadata (minutes, exercises, platforms) and the tables of
rooms and objectives in tools/workshop/rooms.yml, so the tracks and the index follow the book as it changes.

The timing rule is tools/checks/lesson_size.py's (TIMING there): prose at a speaking rate, code read aloud and code
typed live counted apart, plus the cold-cache run time from the run records; `timings` applies it and `--write`
records it. Exercise minutes are the sum of `course.exercises[*].minutes`. The schedules add the room terms
(ROOM_TIMING there: run-along cells, debriefs, room-mode questions) to each lesson's slot.

`python -m tools.execute.student_copies` runs each student copy as a learner does (tools/execute's job).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from tools.course import ROOT, CourseError, notebook_paths, read_notebook, write_notebook
from tools.workshop.colab import colab_problems, colab_runtime
from tools.workshop.handout import preflight_of_day, write_handout
from tools.workshop.pages import schedules_section, write_pages
from tools.workshop.rooms import tables
from tools.workshop.student import write_student_branch, write_student_notebooks
from tools.workshop.timing import print_timings, timings, write_timing
from tools.workshop.tracks import Track, taught_entries, tracks


def parser() -> argparse.ArgumentParser:
    found = argparse.ArgumentParser(prog="python -m tools.workshop", description=__doc__,
                                    formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = found.add_subparsers(dest="command", required=True)
    commands.add_parser("schedule", help="print every track")
    commands.add_parser("pages", help="write chapters/workshop.md's schedules and chapters/exercises.md")
    timing = commands.add_parser("timings", help="teaching minutes by the timing rule, from run records")
    timing.add_argument("records", nargs="+", type=Path, help="run-record JSON files or folders of them")
    timing.add_argument("--write", action="store_true", help="write the minutes into the notebooks")
    timing.add_argument("--only", nargs="*", default=None, metavar="NOTEBOOK",
                        help="with --write: only these notebooks (paths)")
    colab = commands.add_parser("colab", help="set Colab's runtime metadata from course.platforms")
    colab.add_argument("--check", action="store_true", help="exit 1 when a notebook's metadata is not set")
    colab.add_argument("notebooks", nargs="*", type=Path, help="notebooks to set (default: all)")
    student = commands.add_parser("student", help="write student notebooks")
    student.add_argument("out", nargs="?", type=Path, default=ROOT / "_build" / "student",
                         help="folder for the student notebooks (default: _build/student/); one under _build/ is "
                         "emptied first, another must hold no notebooks")
    student.add_argument("--track", metavar="ROOM", help="only the notebooks of this room's day (with --day)")
    student.add_argument("--day", metavar="half|full", help="the day of --track: half or full")
    student.add_argument("--branch", action="store_true",
                         help="every copy and what the student branch holds beside them (Binder, the scanner, results)")
    return found


def clear_earlier_copies(out: Path) -> None:
    """An earlier write's notebooks must not mix with this one's (a day's folder would hold every lesson): a folder
    under _build/ is emptied; any other that holds notebooks is refused, for its owner to empty."""
    if not out.is_dir() or next(out.rglob("*.ipynb"), None) is None:
        return
    if not out.resolve().is_relative_to((ROOT / "_build").resolve()):
        raise CourseError(f"{out}: holds notebooks already (an earlier write?): empty it or name a new folder")
    shutil.rmtree(out)


def day_track(room_key: str | None, day: str | None) -> Track | None:
    """The track of a room's day, or None for every notebook; a CourseError for an unknown room or day."""
    if room_key is None and day is None:
        return None
    if room_key is None or day is None:
        raise CourseError("--track and --day go together: for example --track cpu --day half")
    keys = [room.key for room in tables().rooms]
    if room_key not in keys:
        raise CourseError(f"unknown room {room_key!r}: one of {', '.join(keys)} (tools/workshop/rooms.yml)")
    if day not in ("half", "full"):
        raise CourseError(f"unknown day {day!r}: half or full")
    (track,) = [t for t in tracks() if t.room.key == room_key and t.day == day]
    return track


def day_entries(track: Track) -> set[str]:
    """The notebooks a room's day hands out: its lessons, breakout parts included, its reading, and the pre-flight."""
    taught = {entry for slot in track.slots if slot.lesson for entry in taught_entries(slot.lesson)}
    return taught | {lesson.entry for lesson in track.reading} | {tables().preflight}


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        if args.command == "schedule":
            print(schedules_section())
        elif args.command == "pages":
            for path in write_pages():
                print(f"wrote {path.relative_to(ROOT)}")
        elif args.command == "timings":
            found = timings(args.records)
            print_timings(found)
            if args.write:
                only = {Path(p).resolve().with_suffix("") for p in args.only} if args.only is not None else None
                for t in found:
                    if only is not None and (ROOT / t.entry).resolve() not in only:
                        continue
                    if write_timing(ROOT, t):
                        print(f"wrote {t.entry}.ipynb: {t.teaching} + {t.exercises} minutes")
        elif args.command == "colab":
            if args.check:
                problems = colab_problems()
                print("\n".join(problems) or "every notebook opens on the right Colab runtime")
                return 1 if problems else 0
            for path in args.notebooks or notebook_paths():
                notebook = read_notebook(path)
                updated = colab_runtime(notebook)
                if updated != notebook:
                    write_notebook(path, updated)
                    print(f"set the Colab runtime of {path}")
        else:
            if args.out.exists() and not args.out.is_dir():
                raise CourseError(f"{args.out}: exists and is not a folder")
            if args.branch and args.track is not None:
                raise CourseError("--branch writes every copy: leave out --track and --day")
            track = day_track(args.track, args.day)
            clear_earlier_copies(args.out)  # once the arguments are known good
            if args.branch:
                written = write_student_branch(args.out)
            elif track is None:
                written = write_student_notebooks(args.out)
            else:
                written = write_student_notebooks(args.out, notebook_of=preflight_of_day(track.day),
                                                  entries=day_entries(track))
                for path in write_handout(args.out, track):
                    print(f"wrote the day's handout {path}")
                if not list(args.out.glob("torch_upgrade_scan-*.whl")):
                    print(f"the handout names the scanner's wheel: write it into this folder from the repository's "
                          f"root with `python -m pip wheel --no-deps . -w {args.out}`")
            print(f"wrote {len(written)} student notebook(s) under {args.out}")
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
