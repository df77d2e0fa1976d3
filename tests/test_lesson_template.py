"""Adding a lesson works as written (tools/workshop/lesson_template.py, `make lesson CHAPTER=... NAME=...`): the new
notebook has the course's anatomy and its minutes by the timing rule, its _toc.yml entry lands under its chapter,
bad arguments get one line, and in a copy of the repository the recipe passes `make static` and the notebook runs
through the course's executor (marked integration)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tools import lesson
from tools.checks import conventions, lesson_size
from tools.course import ROOT, Chapter, read_notebook, toc_chapters, toc_files
from tools.execute import command
from tools.workshop import lesson_template

TOC = """# A comment that stays.
format: jb-book
root: index
parts:
  - caption: Features
    chapters:
      - file: chapters/graphs
        sections:
          - file: notebooks/graphs/one
          - file: notebooks/graphs/two
      - file: chapters/alone
  - caption: Other
    chapters:
      - file: chapters/last
"""


def test_the_template_has_the_course_anatomy() -> None:
    """Every convention the static step checks holds for the new notebook (each check on its own list of problems),
    and its exercise pairs a solution with a check, as tools/lesson.py reads it."""
    notebook = lesson_template.lesson_notebook("My lesson", "my-lesson-double", 5)
    assert [problem for check in conventions.CHECKS for problem in check(notebook)] == []
    assert [(pair.label, pair.solution, pair.check) for pair in lesson.exercise_cells(notebook, Path("new"))] == [
        ("my-lesson-double", 6, 7)]
    assert "## Summary" in "".join(notebook["cells"][-1]["source"])


def test_the_header_gives_the_timing_rules_minutes_before_any_run(tmp_path: Path) -> None:
    root = tmp_path
    (root / "_toc.yml").write_text(TOC)
    (root / "notebooks").mkdir()
    path, answers, teaching = lesson_template.new_lesson("graphs", "my-lesson", root)
    notebook = read_notebook(path)
    assert teaching == lesson_size.measure(path, run_seconds=0.0).teaching_minutes == \
        notebook["metadata"]["course"]["minutes"]["teaching"]
    assert f"**Time**: {teaching} minutes of teaching, 5 of exercise." in "".join(notebook["cells"][0]["source"])
    assert "timing" not in notebook["metadata"]["course"], "no run was measured: no course.timing"
    assert sorted(p.name for p in answers.glob("wrong_*.py")) == sorted(lesson_template.WRONG_ANSWERS)
    assert all(p.read_text().startswith("# Wrong: ") for p in answers.iterdir())


@pytest.mark.parametrize(("chapter", "entry", "added"), [
    ("graphs", "notebooks/graphs/new", "          - file: notebooks/graphs/two\n"
                                       "          - file: notebooks/graphs/new\n      - file: chapters/alone\n"),
    ("alone", "notebooks/alone/new", "      - file: chapters/alone\n        sections:\n"
                                     "          - file: notebooks/alone/new\n  - caption: Other\n"),
    ("chapters/last", "notebooks/last/new", "      - file: chapters/last\n        sections:\n"
                                            "          - file: notebooks/last/new\n"),
])
def test_the_toc_entry_lands_at_the_end_of_its_chapter(tmp_path: Path, chapter: str, entry: str, added: str) -> None:
    (tmp_path / "_toc.yml").write_text(TOC.rstrip("\n"))  # a last line without its newline too
    lesson_template.add_to_toc(lesson_template.find_chapter(chapter, tmp_path), entry, tmp_path)
    text = (tmp_path / "_toc.yml").read_text()
    assert added in text and text.startswith("# A comment that stays.\n")
    assert toc_files(tmp_path).count(entry) == 1


def test_a_chapters_lessons_go_to_the_folder_of_its_notebooks() -> None:
    cuda = Chapter("Platforms", "chapters/platform-cuda", ("notebooks/platforms/cuda",))
    assert lesson_template.lesson_folder(cuda) == "notebooks/platforms"
    assert lesson_template.lesson_folder(Chapter("Getting started", "chapters/how-to-use", ())) == \
        "notebooks/how-to-use"


@pytest.mark.parametrize(("arguments", "message"), [
    (["--name", "my-lesson"], "error: CHAPTER is missing: make lesson CHAPTER=<chapter> NAME=<name>, a chapter of "),
    (["--chapter", "nowhere", "--name", "my-lesson"], "error: no chapter 'nowhere' in _toc.yml: one of "),
    (["--chapter", "graphs"], "error: NAME is missing"),
    (["--chapter", "graphs", "--name", "My Lesson"], "error: NAME 'My Lesson': use lower-case words"),
    (["--chapter", "graphs", "--name", "launch-overhead"],
     "error: a lesson named launch-overhead exists: notebooks/graphs/launch-overhead.ipynb; pick another NAME"),
])
def test_bad_arguments_get_one_line_and_write_nothing(arguments: list[str], message: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    before = (ROOT / "_toc.yml").read_text()
    assert lesson_template.main(arguments) == 2
    error = capsys.readouterr().err
    assert error.startswith(message) and error.count("\n") == 1, error
    assert (ROOT / "_toc.yml").read_text() == before
    assert {chapter.stem for chapter in toc_chapters()} >= {"graphs"}


# ---- the recipe in a copy of the repository -------------------------------------------------------------------------

CHAPTER, NAME = "graphs", "replay-basics"
# `make` in the copy never installs: the copy's .venv is this one, and -o keeps make from remaking its stamps.
MAKE = ["make", "--no-print-directory", "-o", ".venv/.book-deps", "-o", ".venv/.test-deps"]


def _repository_copy(target: Path) -> Path:
    """The repository's files as a clone would have them (tracked, and new files git does not ignore), with this
    virtual environment as its .venv."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if name == ".venv" or not source.is_file() or source.is_symlink():
            continue
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target / name)
    (target / ".venv").symlink_to(Path(sys.prefix))
    return target


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600)


def _execute(copy: Path, notebook: str) -> subprocess.CompletedProcess[str]:
    """One notebook through the course's executor: its cells, and its exercise's check against the stub, the wrong
    answers and the solution."""
    return _run(command.notebooks_command(".venv/bin/python", jobs=1, targets=[notebook], root=copy), copy)


@pytest.mark.integration  # the static step and one kernel in a copy of the repository
def test_make_lesson_passes_the_static_step_and_runs(tmp_path: Path) -> None:
    copy = _repository_copy(tmp_path / "copy")
    made = _run([*MAKE, "lesson", f"CHAPTER={CHAPTER}", f"NAME={NAME}"], copy)
    assert made.returncode == 0, made.stdout + made.stderr
    entry = f"notebooks/{CHAPTER}/{NAME}"
    assert entry in toc_files(copy)
    assert f"`{NAME}-double`" in (copy / "chapters" / "exercises.md").read_text(encoding="utf-8")
    static = _run([*MAKE, "static"], copy)
    assert static.returncode == 0, static.stdout[-4000:] + static.stderr[-4000:]
    assert re.search(r"every translation keeps", static.stdout), "the editions' check ran and passed untranslated"
    again = _run([*MAKE, "lesson", f"CHAPTER={CHAPTER}", f"NAME={NAME}"], copy)
    assert again.returncode != 0 and f"error: a lesson named {NAME} exists: {entry}.ipynb" in again.stderr
    executed = _execute(copy, f"{entry}.ipynb")
    assert executed.returncode == 0 and " passed" in executed.stdout, executed.stdout[-4000:] + executed.stderr
