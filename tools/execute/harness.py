"""The exercise harness: inside a notebook's one execution, prove each exercise's check.

Just before each solution cell (tools/lesson.py finds it and its check) runs in nbval's kernel, the course's pytest
plugin (tools/execute/pytest_plugin.py, its `exercise[LABEL]` test) asks this module to run, each followed by the check
cell:

1. the student stub (tools.lesson.STUB, what student copies hold): the check must fail with an assertion whose
   message helps;
2. each wrong answer `tests/exercises/<label>/wrong_*.py` (a complete replacement of the solution cell whose first
   line is `# Wrong: <what the learner did>`): the check must fail, with a message;

and then the real solution and its check run as ordinary cells of the run: the check must pass, and their outputs
are the ones the book shows. Before each attempt, and before the real solution, the notebook's global names, the
state of the random number generators (random, numpy, torch) and Python's warning registry are put back as they
were, so that one attempt cannot hand anything to the next and the rest of the run prints what a plain run prints.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from tools.course import ROOT, CourseError, cell_source, cell_tags, notebook_paths, read_notebook, relative_path
from tools.lesson import STUB, ExerciseCells, exercise_cells

WRONG_ANSWERS = ROOT / "tests" / "exercises"
WRONG_PREFIX = "# Wrong: "
MIN_WRONG_ANSWERS = 3
NOT_LABELS = ("fixtures",)  # folders under tests/exercises/ that hold no wrong answers of the course

# Run in the kernel before the attempts: remember the notebook's public names, the random number generators' state
# and the warning filters; RESTORE puts them back before each attempt, FORGET removes the harness's own names.
# The accelerator's generator is saved only where the notebook has initialised it (untested on an accelerator: this
# project's CI has none).
SAVE = r"""
def _exercise_harness_rng():
    import random as _random
    import sys as _sys
    import warnings as _warnings
    states = {"random": _random.getstate(), "warnings": list(_warnings.filters)}
    if "numpy" in _sys.modules:
        states["numpy"] = _sys.modules["numpy"].random.get_state()
    torch = _sys.modules.get("torch")
    if torch is not None:
        states["torch"] = torch.get_rng_state()
        accelerator = torch.accelerator.current_accelerator(check_available=True)
        module = getattr(torch, accelerator.type, None) if accelerator is not None else None
        if module is not None and getattr(module, "is_initialized", lambda: True)():
            if hasattr(module, "get_rng_state_all"):
                states["accelerator"] = (module.set_rng_state_all, module.get_rng_state_all())
            elif hasattr(module, "get_rng_state"):
                states["accelerator"] = (module.set_rng_state, module.get_rng_state())
    return states


def _exercise_harness_restore(saved, states):
    import random as _random
    import sys as _sys
    import warnings as _warnings
    names = globals()
    for name in [k for k in names if not k.startswith("_")]:
        if name not in saved:
            del names[name]
    names.update(saved)
    _random.setstate(states["random"])
    if "numpy" in states:
        _sys.modules["numpy"].random.set_state(states["numpy"])
    if "torch" in states:
        _sys.modules["torch"].set_rng_state(states["torch"])
    if "accelerator" in states:
        set_state, state = states["accelerator"]
        set_state(state)
    # A warning shown once per place would stay hidden if an attempt raised it first; invalidating the
    # registries shows it again (and keeps the deprecation gate seeing the real solution's warnings).
    _warnings.filters[:] = states["warnings"]
    getattr(_warnings, "_filters_mutated", getattr(_warnings, "_filters_mutated_lock_held", lambda: None))()


_exercise_harness_saved = {k: v for k, v in globals().items() if not k.startswith("_")}
_exercise_harness_states = _exercise_harness_rng()
"""
RESTORE = "_exercise_harness_restore(_exercise_harness_saved, _exercise_harness_states)"
FORGET = """for _exercise_harness_name in [k for k in globals() if k.startswith("_exercise_harness")]:
    del globals()[_exercise_harness_name]"""


class Kernel(Protocol):
    """What proving needs from a running notebook: run a piece of code outside the notebook's own cells."""

    async def scratch(self, source: str, tags: Sequence[str] = ()) -> tuple[str, str] | None:
        """Run code; None when it finished, else (error name, message)."""
        ...


@dataclasses.dataclass
class Report:
    """What the harness found for one exercise (or, with label '', for the notebook as a whole)."""

    notebook: Path
    label: str
    problems: list[str] = dataclasses.field(default_factory=list)
    wrong_answers: int = 0
    seconds: float = 0.0
    cells: tuple[int, ...] = ()  # the solution and check cells' indices in the notebook

    @property
    def ok(self) -> bool:
        return not self.problems

    def __str__(self) -> str:
        where = f"{relative_path(self.notebook)}" + (f" [{self.label}]" if self.label else "")
        if self.ok:
            return f"ok   {where}: stub and {self.wrong_answers} wrong answer(s) rejected, solution accepted"
        return f"FAIL {where}:\n" + "\n".join(f"     - {problem}" for problem in self.problems)


def wrong_answer_files(label: str, root: Path = WRONG_ANSWERS) -> list[Path]:
    return sorted((root / label).glob("wrong_*.py"))


def wrong_line(path: Path) -> str:
    """The first line of a wrong answer: '# Wrong: what the learner did'."""
    text = path.read_text(encoding="utf-8")
    return text.splitlines()[0] if text else ""


def course_labels() -> dict[str, Path]:
    """Every exercise label of the course with its notebook."""
    labels = {}
    for path in notebook_paths():
        for exercise in exercise_cells(read_notebook(path), path):
            labels[exercise.label] = path
    return labels


def wrong_answer_problems(labels: dict[str, Path], root: Path = WRONG_ANSWERS) -> list[str]:
    """Static checks: three wrong answers per exercise, no folder without an exercise, the '# Wrong: ' line."""
    problems = []
    for label, path in labels.items():
        count = len(wrong_answer_files(label, root))
        if count < MIN_WRONG_ANSWERS:
            problems.append(f"{label} ({relative_path(path)}) has {count} wrong answer(s) under "
                            f"{relative_path(root / label)}/; "
                            f"write at least {MIN_WRONG_ANSWERS} (wrong_<slug>.py, first line '{WRONG_PREFIX}...')")
    for folder in sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []:
        if folder.name in NOT_LABELS or folder.name.startswith(("_", ".")):
            continue
        if folder.name not in labels:
            problems.append(f"{relative_path(folder)}/ matches no exercise label (known: {', '.join(sorted(labels))})")
        for wrong in sorted(folder.glob("wrong_*.py")):
            if not wrong_line(wrong).startswith(WRONG_PREFIX) or not wrong_line(wrong)[len(WRONG_PREFIX):].strip():
                problems.append(f"{relative_path(wrong)} must start with '{WRONG_PREFIX}<what the learner did>'")
    return problems


def failure_text(error: tuple[str, str]) -> str:
    name, message = error
    return f"{name}: {message}" if message else f"{name} (no message)"


async def prove(kernel: Kernel, exercise: ExerciseCells, cells: list[dict[str, Any]], report: Report,
                wrong_root: Path = WRONG_ANSWERS) -> None:
    """Run the stub and each wrong answer, each followed by the check, and put the notebook back as it was.

    The real solution and its check are not run here: they are the notebook's next cells, run as every cell is."""
    check = cell_source(cells[exercise.check])
    check_tags = [t for t in cell_tags(cells[exercise.check]) if t != "raises-exception"]

    async def attempt(source: str) -> tuple[str, str] | str | None:
        """Run an answer, then the check: the check's error, None if it passed, 'answer: ...' if the answer broke."""
        await kernel.scratch(RESTORE)
        answer_error = await kernel.scratch(source)
        if answer_error:
            return f"answer: {failure_text(answer_error)}"
        return await kernel.scratch(check, check_tags)

    saved = await kernel.scratch(SAVE)
    if saved:
        raise CourseError(f"the harness could not save the notebook's state: {failure_text(saved)}")
    outcome = await attempt(STUB)
    if outcome is None:
        report.problems.append("the check PASSED with the student stub (no solution at all): it must fail, "
                               "starting with e.g. assert callable(globals().get('name')), 'define name(...) above'")
    elif isinstance(outcome, str):
        report.problems.append(f"the student stub itself failed ({outcome})")
    elif outcome[0] != "AssertionError" or not outcome[1]:
        report.problems.append(f"with the student stub the check failed with {failure_text(outcome)}; it must fail "
                               "with an assertion whose message says what to define: begin the check with e.g. "
                               "assert callable(globals().get('name')), 'define name(...) above'")
    answers = {}
    for wrong in wrong_answer_files(exercise.label, wrong_root):
        try:  # read them all now: a file edited or removed during the run does not break it
            answers[wrong] = wrong.read_text(encoding="utf-8")
        except OSError as error:
            report.problems.append(f"could not read {relative_path(wrong)}: {error}")
    for wrong, source in answers.items():
        report.wrong_answers += 1
        outcome = await attempt(source)
        name = f"{relative_path(wrong)} ({source.splitlines()[0] if source else ''!r})"
        if outcome is None:
            report.problems.append(f"the check ACCEPTED the wrong answer {name}: make the check catch this mistake")
        elif isinstance(outcome, str):
            report.problems.append(f"the wrong answer {name} broke before the check ran ({outcome}): a wrong answer "
                                   "must run, and the check must catch its mistake")
        elif not outcome[1]:
            report.problems.append(f"the check rejected the wrong answer {name} with {outcome[0]} and no message: "
                                   "say what was expected and what the answer did")
    await kernel.scratch(RESTORE)
    await kernel.scratch(FORGET)


def solution_problem(exercise: ExerciseCells, failed_cell: int | None, error: str) -> str | None:
    """What the real run says about an exercise's solution, given the notebook cell where the run stopped."""
    if failed_cell == exercise.solution:
        return f"the solution itself failed (answer: {error})"
    if failed_cell == exercise.check:
        return f"the check REJECTED the real solution: {error}"
    return None
