"""The generated Markdown: the tracks' tables, the objectives, the exercise index and the student-copy table, spliced
between the GENERATED markers of chapters/workshop.md, and chapters/exercises.md written whole."""

from __future__ import annotations

from pathlib import Path

from tools.author import quiz
from tools.checks import lesson_size
from tools.course import ROOT, CourseError, read_notebook
from tools.lesson import has_solutions
from tools.workshop.colab import install_summary
from tools.workshop.lessons import exercises, lesson_entries
from tools.workshop.rooms import tables
from tools.workshop.student import student_links
from tools.workshop.tracks import (
    COVER_MINUTES,
    FULL_DAY_BUFFER,
    START,
    WALK_THROUGH,
    Slot,
    Track,
    cut_plan,
    tracks,
)

BEGIN = "<!-- BEGIN GENERATED: {name} (python -m tools.workshop pages; do not edit by hand) -->"
END = "<!-- END GENERATED: {name} -->"


def clock_time(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def duration(minutes: int) -> str:
    """'3 h 45 min' (never rounded, so the heading agrees with the clock times)."""
    hours, rest = divmod(minutes, 60)
    return f"{hours} h {rest:02d} min" if rest else f"{hours} h"


def doc_link(entry: str) -> str:
    return f"{{doc}}`../{entry}`"


def session_link(entry: str) -> str:
    """A lesson's link, or "the platform breakout" for a breakout's joined entries (tracks.breakout)."""
    return "the platform breakout" if "+" in entry else doc_link(entry)


def slot_minutes(slot: Slot) -> str:
    """'52 (25 + 10 + run-along 9 + debrief 4 + quiz 2 + setup 2)': teaching, exercises, then the room's terms and
    whatever else the slot holds, less the sections it skips."""
    assert slot.lesson is not None
    if slot.lesson.walk_through:
        return f"{slot.minutes} (walk-through)"
    parts = [str(slot.lesson.teaching), str(slot.exercises)]
    parts += [f"{what} {minutes}" for what, minutes in (
        ("run-along", slot.run_along), ("debrief", slot.debrief), ("quiz", slot.quiz), ("setup", slot.setup),
        ("cover", COVER_MINUTES * len(slot.covers))) if minutes]
    return f"{slot.minutes} ({' + '.join(parts)}{f' - skip {slot.skip}' if slot.skip else ''})"


def code_label(label: str) -> str:
    return f"`{label}`" if "`" not in label and " " not in label else label


def cut_list(track: Track) -> str:
    """The day's cut plan as a numbered list in clock order, each cut with its time, minutes and the running total."""
    rows, total = [], 0
    for number, cut in enumerate(cut_plan(track), 1):
        total += cut.minutes
        if cut.what == "lesson":
            what = f"Move {doc_link(cut.entry)} to a second session"
        elif cut.what == "exercise":
            what = f"Give {code_label(cut.label)} of {session_link(cut.entry)} as homework"
        elif cut.what == "reading":
            what = f"Skip the walk-through of {doc_link(cut.entry)}: give its page as reading"
        elif cut.what == "run-along":
            # The lesson's exercises need the cells above them: whoever does one (in the room or as homework) runs them.
            what = (f"Run {session_link(cut.entry)} on the projector: the room watches instead of running its cells "
                    "along, and runs the cells above an exercise before doing it (JupyterLab: Run All Above Selected "
                    "Cell; Colab: Run before)")
        else:
            what = f"In the lessons {cut.label} the mid-day check, ask one self-check question instead of two"
        rows.append(f"{number}. {clock_time(cut.start)}, {what[0].lower()}{what[1:]}: {cut.minutes} min ({total} in "
                    "all).")
    return "\n".join(rows)


def track_table(track: Track) -> str:
    rows = ["| time | session | minutes (teaching + exercises + room terms) | objective |",
            "| --- | --- | --- | --- |"]
    notes = []
    part_needs, covers = tables().part_needs, tables().covers
    for slot in track.slots:
        if not slot.lesson:
            what = "Mid-day check ({doc}`../instructors/mid-day-check`)" if slot.what == "Mid-day check" else slot.what
            rows.append(f"| {clock_time(slot.start)} | *{what}* | {slot.minutes} | |")
            continue
        lesson = slot.lesson
        mark = ""
        if lesson.entry in part_needs and part_needs[lesson.entry][0] not in track.room.platforms \
                and not lesson.walk_through:
            mark = " (see note)"
            notes.append(f"{doc_link(lesson.entry)}: {part_needs[lesson.entry][1]}.")
        for entry in slot.covers:
            mark = " (see note)"
            notes.append(f"{doc_link(lesson.entry)} starts with five minutes on {doc_link(entry)}: {covers[entry]}.")
        if slot.skipped:
            mark = " (see note)"
            notes.append(f"{doc_link(lesson.entry)} skips " + " and ".join(f"“{section}”" for section in slot.skipped)
                         + ", taught earlier in the day.")
        session = doc_link(lesson.entry)
        if lesson.parallel:
            session = "breakout: " + " / ".join(doc_link(part.entry) for part in lesson.parallel)
            notes.append("In the breakout each group takes the platform lesson of its laptops (NVIDIA: CUDA; "
                         "Apple silicon: MPS; AMD: ROCm; Intel GPUs: XPU; CPU-only and Colab: know your "
                         "accelerator), led by a helper, while the instructor moves between groups; the slot is as "
                         "long as the longest of them.")
        if lesson.walk_through:
            session = f"walk-through: {session}"
        if slot.kept:
            session += " (keeps " + ", ".join(code_label(label) for label in slot.kept) + ")"
        if lesson.optional:
            session += " (optional: " + ", ".join(code_label(label) for label, _ in lesson.optional) + ")"
        rows.append(f"| {clock_time(slot.start)} | {session}{mark} | {slot_minutes(slot)} | {slot.objective} |")
    taught = sum(s.minutes for s in track.slots if s.lesson)
    text = "\n".join(rows)
    text += (f"\n\nFrom {clock_time(START)} to {clock_time(track.end)}: {duration(track.length)}, "
             f"{taught} minutes of lessons.")
    if track.day == "half":
        text += (f" A half day shows the lessons marked walk-through in {WALK_THROUGH} minutes on the projector, "
                 "keeps each lesson's shortest exercise while the day allows (always the flagship's and the "
                 "migration lessons'), and has no room for the graphs and distributed objectives; give the other "
                 "exercises as homework.")
    elif any(slot.kept for slot in track.slots):
        text += " Where a lesson keeps fewer exercises than it counts, the table names the ones it keeps."
    if track.reading:
        text += " Read before the day: " + ", ".join(doc_link(lesson.entry) for lesson in track.reading) + (
            " (the walk-through a half day shows, given as reading so that each lesson keeps its exercise; the "
            "handout asks for it).")
    if track.left_out:
        text += " Not in this day (a second session): " + ", ".join(
            f"{doc_link(lesson.entry)} ({lesson.minutes} min)" for lesson in track.left_out) + "."
    if notes:
        text += "\n\nNote: " + " ".join(notes)
    if track.day == "full":
        text += (f"\n\nBuffer: {track.buffer} minutes before the {duration(track.limit)} of a full day (at least "
                 f"{FULL_DAY_BUFFER}), for a slow install, a question that takes longer, a late start.")
    text += ("\n\nWhen the room runs late, cut in the day's order, from the next item to come (the mid-day check "
             "reads this list: what comes after it gives back at least 15 minutes), then what each lesson's "
             "instructor notes list under \"Cut when late\" ({doc}`../instructors/index`):")
    cuts = cut_list(track)
    return text + ("\n\n" + cuts if cuts else "")


def objectives_section() -> str:
    return "\n".join(f"- **{o.key}**: {o.text};" + ("" if o.half_day else " (full day only)")
                     for o in tables().objectives)


def overlaps_section(root: Path = ROOT) -> str:
    """The sections a track skips where an earlier lesson of the day taught them (overlaps in rooms.yml), with their
    minutes by the timing rule."""
    rows = []
    for entry, sections in tables().overlaps.items():
        for section, taught_in in sections:
            minutes = lesson_size.section_minutes(root / f"{entry}.ipynb", section)
            rows.append(f"- {doc_link(entry)}: “{section}” ({minutes} min), taught in {doc_link(taught_in)};")
    return "\n".join(rows)


def schedules_section(root: Path = ROOT) -> str:
    parts = []
    for track in tracks(root):
        title = "Half day" if track.day == "half" else "Full day"
        parts.append(f"### {track.room.title}: {title.lower()} ({duration(track.length)})\n\n"
                     f"For {track.room.audience}.\n\n{track_table(track)}")
    return "\n\n".join(parts)


# ---- the exercise index ---------------------------------------------------------------------------------------------


def quiz_rows(root: Path) -> list[str]:
    """One row per lesson that asks self-check questions (tools/author/quiz/)."""
    if not (root / quiz.QUIZZES).is_dir():
        return []
    return [f"| {chapter_quiz.title} | {doc_link(entry)} | {len(questions)} |"
            for entry, (chapter_quiz, questions) in quiz.lesson_questions(root).items()]


def exercises_page(root: Path = ROOT) -> str:
    found = exercises(root)
    rows = [f"| {e.title.replace('|', '&#124;')} | {doc_link(e.entry)} | {e.level or '–'} | {e.minutes} | "
            f"`{e.label}` |" for e in found]
    total = sum(e.minutes for e in found)
    quizzes = quiz_rows(root)
    if not quizzes:
        quiz_part = ["No lesson asks self-check questions yet."]
    else:
        quiz_part = ["Each chapter has self-check questions, multiple choice, each asked at the end of the lesson that "
                     "teaches it: the answers sit in toggles in the book, and a form checks them in a live notebook. "
                     "For a room, {doc}`../instructors/quiz-room` shows them without answers.", "",
                     "| chapter | lesson | questions |", "| --- | --- | --- |", *quizzes]
    return "\n".join([
        "# Exercises",
        "",
        "<!-- Generated by `python -m tools.workshop pages` from the notebooks; do not edit by hand. -->",
        "",
        "Every lesson has exercises. The solution sits in a hidden cell under each task, and the cell after it",
        "checks any answer, so each solution is proven whenever the book is built. For a workshop, hand out the",
        "student notebooks, whose solution cells are empty (see {doc}`workshop`).",
        "",
        f"{len(found)} exercises, {total} minutes in all, in the order of the book. The level is easy, medium or",
        "hard; the label names the exercise in the tests (`tests/exercises/<label>/`).",
        "",
        "| exercise | notebook | level | minutes | label |",
        "| --- | --- | --- | --- | --- |",
        *rows,
        "",
        "## Self-check quizzes",
        "",
        *quiz_part,
        "",
    ])


def student_section(root: Path = ROOT) -> str:
    """The workshop page's table of student copies: every lesson with exercises, opened on Colab or Binder."""
    rows = ["| lesson | student copy |", "| --- | --- |"]
    for entry in lesson_entries(root):
        if not has_solutions(read_notebook(root / f"{entry}.ipynb")):
            continue
        links = student_links(entry, root)
        rows.append(f"| {doc_link(entry)} | [Colab]({links['colab']}) · [Binder]({links['binder']}) · "
                    f'<a href="../{links["download"]}" download>download</a> |')
    return "\n".join(rows)


def replace_section(text: str, name: str, body: str, path: Path) -> str:
    begin, end = BEGIN.format(name=name), END.format(name=name)
    if text.count(begin) != 1 or text.count(end) != 1 or text.index(begin) > text.index(end):
        raise CourseError(f"{path}: needs one '{begin}' line and, after it, one '{end}' line")
    head, rest = text.split(begin)
    _, tail = rest.split(end)
    return f"{head}{begin}\n{body}\n{end}{tail}"


def expected_pages(root: Path = ROOT) -> dict[Path, str]:
    """Each generated page's path and the text it should hold."""
    guide = root / "chapters" / "workshop.md"
    if not guide.is_file():
        raise CourseError(f"{guide}: missing (it holds the instructor guide and the generated schedules)")
    text = guide.read_text(encoding="utf-8")
    if BEGIN.format(name="objectives") in text:
        text = replace_section(text, "objectives", objectives_section(), guide)
    text = replace_section(text, "schedules", schedules_section(root), guide)
    if BEGIN.format(name="overlaps") in text:
        text = replace_section(text, "overlaps", overlaps_section(root), guide)
    if BEGIN.format(name="timing-rule") in text:
        text = replace_section(text, "timing-rule", f"**The rule**: {lesson_size.TIMING}. **In a room**: "
                                                    f"{lesson_size.ROOM_TIMING}.", guide)
    if BEGIN.format(name="student-copies") in text:
        text = replace_section(text, "student-copies", student_section(root), guide)
    found = {guide: text, root / "chapters" / "exercises.md": exercises_page(root)}
    colab_page = root / "chapters" / "workshop-colab.md"
    if colab_page.is_file():
        found[colab_page] = replace_section(colab_page.read_text(encoding="utf-8"), "colab-install",
                                            install_summary(), colab_page)
    return found


def stale_pages(root: Path = ROOT) -> list[Path]:
    return [path for path, text in expected_pages(root).items()
            if not path.is_file() or path.read_text(encoding="utf-8") != text]


def write_pages(root: Path = ROOT) -> list[Path]:
    """Write the generated pages; return those that changed."""
    changed = stale_pages(root)
    for path, text in expected_pages(root).items():
        if path in changed:
            path.write_text(text, encoding="utf-8")
    return changed

