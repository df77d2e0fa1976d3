"""The tracks: for each room and day (half or full), the slots of its lessons, breaks, lunch, welcome, the mid-day
check and wrap-up, planned to teach every objective within the day; the day's cut plan; what is wrong with a track.

A lesson's slot holds its room minutes (tools/checks/lesson_size.py, TIMING and ROOM_TIMING): teaching, the room's
run-along, each exercise kept with its debrief, the questions asked in room mode, Colab's restart and covers."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from tools.course import ROOT, CourseError
from tools.workshop.colab import setup_minutes
from tools.workshop.lessons import QUIZ_MINUTES, Lesson, lessons
from tools.workshop.rooms import Room, tables

HALF_DAY = 240  # minutes at most: a half day is up to 4 hours, breaks included
FULL_DAY = 420  # minutes at most: a full day is up to 7 hours, lunch and breaks included
LONGEST_BLOCK = 90  # minutes of lessons before a break
BREAK, LUNCH = 15, 45
HALF_DAY_BREAK = 10  # a half day's breaks: two short ones fit its four hours with the room terms counted
LUNCH_AFTER = 150  # minutes into a full day before lunch may start
WELCOME = 20  # the opening: welcome, the first install (the install cell, a restart) and the pre-flight tables
MIDDAY_CHECK = 5  # instructors/mid-day-check.md, before the break nearest the middle of a half day, or lunch
WALK_THROUGH = 10  # a lesson a half day shows on the projector instead of running it (half_day_walk_through)
WRAP_UP = 10
COLAB_SETUP = setup_minutes()  # per lesson in a room that uses Colab: the install cell, measured, and the restart
COLAB_WELCOME = WELCOME + COLAB_SETUP  # the same where some work on Colab: the pre-flight's runtime installs too
COVER_MINUTES = 5  # a prerequisite lesson the track does not teach, summarised at the start of the lesson
START = 9 * 60  # 09:00
FULL_DAY_BUFFER = 10  # minutes a full day leaves free at least: its lessons plan to end this much before FULL_DAY
HALF_DAY_CUTS = 15  # minutes a half day's cut plan gives back at least (a half day has no buffer)


@dataclasses.dataclass(frozen=True)
class Slot:
    start: int  # minutes after midnight
    minutes: int
    what: str
    lesson: Lesson | None = None
    exercises: int = 0  # exercise minutes taken in this slot (a half day keeps fewer)
    objective: str = ""
    kept: tuple[str, ...] = ()  # labels of the exercises kept, where the slot keeps fewer than the lesson counts
    quiz: int = 0  # minutes of the lesson's self-check questions asked in room mode
    setup: int = 0  # minutes of Colab's install cell and restart
    covers: tuple[str, ...] = ()  # prerequisite lessons summarised at the start (covers in rooms.yml)
    run_along: int = 0  # minutes of the room running the lesson's cells along
    debrief: int = 0  # minutes of going over the kept exercises' solutions
    skipped: tuple[str, ...] = ()  # sections skipped because a lesson earlier in the track taught them (overlaps)
    skip: int = 0  # the minutes those sections would have taken, taken off the slot


@dataclasses.dataclass(frozen=True)
class Track:
    room: Room
    day: str  # "half" or "full"
    slots: tuple[Slot, ...]
    left_out: tuple[Lesson, ...]  # extras that did not fit
    reading: tuple[Lesson, ...] = ()  # walk-throughs a half day gives as reading before the day: an exercise fits

    @property
    def end(self) -> int:
        return self.slots[-1].start + self.slots[-1].minutes

    @property
    def length(self) -> int:
        return self.end - START

    @property
    def limit(self) -> int:
        return HALF_DAY if self.day == "half" else FULL_DAY

    @property
    def buffer(self) -> int:
        """The minutes the day leaves free before its limit."""
        return self.limit - self.length


@dataclasses.dataclass(frozen=True)
class Cut:
    what: str  # "lesson" (an extra: a second session), "exercise" (homework), "quiz" (one question a lesson),
    # "reading" (a walk-through given as reading) or "run-along" (the lesson on the projector, the room watching)
    entry: str  # the lesson it cuts from ("" for the quiz)
    label: str  # the exercise's label (the quiz: "before" or "after" the mid-day check)
    minutes: int  # what it gives back to the day
    start: int = 0  # the clock time of the slot it cuts from (the quiz: the first lesson, or the mid-day check)


def track_lessons(room: Room, day: str) -> list[tuple[str, str]]:
    """(objective key, lesson entry) in teaching order: the lessons every track of this room and day must hold."""
    found = []
    for objective in tables().objectives:
        if day == "half" and not objective.half_day:
            continue
        entries = room.platform_lessons if objective.key == "platform" else objective.lessons
        if day == "full":
            entries = objective.full_day_only + entries
        found += [(objective.key, entry) for entry in entries]
    return found


def breakout(parts: tuple[Lesson, ...]) -> Lesson:
    """One slot in which each group of laptops takes its own platform lesson: as long as the longest of them."""
    counted = [p.exercise_list for p in parts if p.exercise_list]
    shortest = max((listed[0][1] for listed in counted), default=0)
    first_debrief = max((listed[0][2] for listed in counted), default=0)
    every = max((sum(m for _, m, _ in listed) for listed in counted), default=0)
    debriefs = max((sum(d for _, _, d in listed) for listed in counted), default=0)
    listed = (("each group's shortest", shortest, first_debrief),
              ("each group's others", every - shortest, debriefs - first_debrief))
    return Lesson("+".join(part.entry for part in parts), "Platform breakout", max(p.teaching for p in parts),
                  every, tuple(sorted({x for p in parts for x in p.platforms})), shortest,
                  listed if every > shortest else listed[:1] if shortest else (),
                  tuple(sorted({x for p in parts for x in p.prerequisites})), max(p.questions for p in parts), parts,
                  max(p.run_along for p in parts))


def walk_through(lesson: Lesson) -> Lesson:
    """The lesson as a half day shows it: the instructor runs it on the projector in WALK_THROUGH minutes."""
    return dataclasses.replace(lesson, teaching=WALK_THROUGH, exercise_list=(), optional=(), short_exercise=0,
                               questions=0, run_along=0, prerequisites=(), walk_through=True)


def sessions_of(room: Room, day: str, found: dict[str, Lesson]) -> list[tuple[str, Lesson]]:
    """(objective, lesson) in teaching order, a breakout room's platform lessons joined into one."""
    walked = {entry for o in tables().objectives for entry in o.half_day_walk_through} if day == "half" else set()
    ordered = [(objective, walk_through(found[entry]) if entry in walked else found[entry])
               for objective, entry in track_lessons(room, day)]
    if not room.breakout:
        return ordered
    parts = tuple(lesson for objective, lesson in ordered if objective == "platform")
    rest = [(objective, lesson) for objective, lesson in ordered if objective != "platform"]
    return [("platform", breakout(parts)), *rest] if parts else rest


def taught_entries(lesson: Lesson) -> tuple[str, ...]:
    return tuple(part.entry for part in lesson.parallel) or (lesson.entry,)


def plan(sessions: list[tuple[str, Lesson, int]], length: int, room: Room | None = None) -> tuple[Slot, ...]:
    """Slots for (objective, lesson, number of exercises kept, shortest first) in order: welcome, a break at least
    every LONGEST_BLOCK minutes (in a full day the first break after LUNCH_AFTER minutes is lunch), the mid-day check,
    a wrap-up. Each lesson's slot holds its room minutes (the module's docstring), a walk-through only its own."""
    colab = room is not None and room.colab
    welcome = COLAB_WELCOME if colab else WELCOME
    slots = [Slot(START, welcome, "Welcome, the first install and the pre-flight tables")]
    clock, since_break, had_lunch = START + welcome, welcome, False
    taught: set[str] = set()
    for objective, lesson, count in sessions:
        kept = lesson.kept(count)
        exercise_minutes, debrief = sum(m for _, m, _ in kept), sum(d for _, _, d in kept)
        labels = tuple(label for label, _, _ in kept) if count < lesson.exercise_count else ()
        covers = tuple(entry for entry in lesson.prerequisites if entry not in taught and entry in tables().covers)
        quiz = lesson.questions * QUIZ_MINUTES
        setup = COLAB_SETUP if colab and not lesson.walk_through else 0
        skipped = tuple((section, m) for section, taught_in, m in lesson.overlaps
                        if taught_in in taught and not lesson.walk_through)
        skip = sum(m for _, m in skipped)
        minutes = (lesson.teaching + lesson.run_along + exercise_minutes + debrief + quiz + setup
                   + COVER_MINUTES * len(covers) - skip)
        if since_break and since_break + minutes > LONGEST_BLOCK:
            lunch = length >= FULL_DAY and not had_lunch and clock - START >= LUNCH_AFTER
            pause, name = (LUNCH, "Lunch") if lunch else (BREAK if length >= FULL_DAY else HALF_DAY_BREAK, "Break")
            slots.append(Slot(clock, pause, name))
            clock, since_break, had_lunch = clock + pause, 0, had_lunch or lunch
        slots.append(Slot(clock, minutes, lesson.title, lesson, exercise_minutes, objective, labels, quiz, setup,
                          covers, 0 if lesson.walk_through else lesson.run_along, debrief,
                          tuple(section for section, _ in skipped), skip))
        clock, since_break = clock + minutes, since_break + minutes
        taught.update(taught_entries(lesson))
    if length >= FULL_DAY and not had_lunch:
        raise CourseError("a full day's lessons end before lunch could start: add lessons or shorten the day")
    slots.append(Slot(clock, WRAP_UP, "Wrap-up: questions, what to try next, the feedback form"))
    return with_midday_check(slots)


def with_midday_check(slots: list[Slot]) -> tuple[Slot, ...]:
    """The slots with the mid-day check before lunch, or else before the break nearest the middle of the day from
    which the cut plan still gives back HALF_DAY_CUTS minutes (the nearest break where none does; before the wrap-up
    in a day without a break); the slots after it start MIDDAY_CHECK minutes later."""
    middle = (slots[0].start + slots[-1].start + slots[-1].minutes) / 2
    pauses = [i for i, slot in enumerate(slots) if slot.what == "Lunch"] or sorted(
        (i for i, slot in enumerate(slots) if slot.what == "Break"), key=lambda i: abs(slots[i].start - middle))

    def checked(at: int) -> tuple[Slot, ...]:
        check = Slot(slots[at].start, MIDDAY_CHECK, "Mid-day check")
        later = [dataclasses.replace(slot, start=slot.start + MIDDAY_CHECK) for slot in slots[at:]]
        return (*slots[:at], check, *later)

    placed = [checked(at) for at in pauses or [len(slots) - 1]]
    return next((found for found in placed if cuts_after_check(found) >= HALF_DAY_CUTS), placed[0])


def build_track(room: Room, day: str, found: dict[str, Lesson]) -> Track:
    """The track of one room and day: every objective's lessons, then the room's extras that still fit (full day).
    A full day takes every exercise of a lesson; a half day its shortest one while the day allows (always for the
    objectives marked keeps_exercise)."""
    missing = [entry for _, entry in track_lessons(room, day) if entry not in found]
    missing += [entry for entry in room.extras if day == "full" and entry not in found]
    if missing:
        raise CourseError(f"the {room.key} track needs {', '.join(missing)}, which the book does not have")
    ordered = sessions_of(room, day, found)
    limit = HALF_DAY if day == "half" else FULL_DAY
    budget = limit if day == "half" else FULL_DAY - FULL_DAY_BUFFER  # a full day keeps its buffer free
    kept = {o.key for o in tables().objectives if o.keeps_exercise}

    def fits(slots: tuple[Slot, ...]) -> bool:
        return slots[-1].start + slots[-1].minutes - START <= budget

    reading: tuple[Lesson, ...] = ()
    if day == "half":  # from no exercise up: each lesson's shortest while the day allows, the kept ones always;
        # where a lesson's exercise still does not fit, the walk-throughs are given as reading and it is tried again
        def half_day(ordered: list[tuple[str, Lesson]]) -> tuple[list[tuple[str, Lesson, int]], tuple[Slot, ...]]:
            sessions = [(o, lesson, 0) for o, lesson in ordered]
            slots = plan(sessions, limit, room)
            for index in sorted(range(len(sessions)), key=lambda i: sessions[i][0] not in kept):
                objective, lesson, _ = sessions[index]
                trial = [*sessions]
                trial[index] = (objective, lesson, 1)
                trial_slots = plan(trial, limit, room)
                if fits(trial_slots) or objective in kept:
                    sessions, slots = trial, trial_slots
            return sessions, slots

        sessions, slots = half_day(ordered)
        dropped = any(count == 0 and lesson.exercise_list for _, lesson, count in sessions)
        walked = tuple(lesson for _, lesson in ordered if lesson.walk_through)
        if dropped and walked:
            read_sessions, read_slots = half_day([(o, lesson) for o, lesson in ordered if not lesson.walk_through])
            if sum(len(lesson.kept(count)) for _, lesson, count in read_sessions) > sum(
                    len(lesson.kept(count)) for _, lesson, count in sessions):
                sessions, slots, reading = read_sessions, read_slots, walked
    else:  # from every exercise down: the last lesson that has two or more drops its longest, then the last lesson
        # of an objective not kept whole drops its last, until the day fits with its buffer; where it cannot, the
        # lessons a half day walks through are walked through here too, and the exercises dropped again from all
        walked = {entry for o in tables().objectives for entry in o.half_day_walk_through}
        for walk in (False, True):
            sessions = [(o, walk_through(lesson), 0) if walk and lesson.entry in walked
                        else (o, lesson, lesson.exercise_count) for o, lesson in ordered]
            slots = plan(sessions, limit, room)
            while not fits(slots):
                longer = [i for i, (_, _, count) in enumerate(sessions) if count > 1]
                longer = longer or [i for i, (o, _, count) in enumerate(sessions) if count == 1 and o not in kept]
                if not longer:
                    break
                objective, lesson, count = sessions[longer[-1]]
                sessions[longer[-1]] = (objective, lesson, count - 1)
                slots = plan(sessions, limit, room)
            if fits(slots):
                break
    left_out = []
    for entry in room.extras if day == "full" else ():  # each with the exercises a track counts
        extra = found[entry]
        trial = [*sessions, ("extra", extra, extra.exercise_count)]
        trial_slots = plan(trial, limit, room)
        if fits(trial_slots):
            sessions, slots = trial, trial_slots
        else:
            left_out.append(extra)
    return Track(room, day, slots, tuple(left_out), reading)


def tracks(root: Path = ROOT) -> list[Track]:
    found = {lesson.entry: lesson for lesson in lessons(root)}
    return [build_track(room, day, found) for room in tables().rooms for day in ("half", "full")]


def slot_exercises(slot: Slot) -> tuple[tuple[str, int, int], ...]:
    """(label, minutes, debrief) of the exercises a lesson's slot keeps."""
    if slot.lesson is None or not (slot.exercises or slot.debrief):
        return ()
    return slot.lesson.kept(len(slot.kept) or slot.lesson.exercise_count)


def midday_check(slots: tuple[Slot, ...]) -> int:
    """The clock time of the day's mid-day check."""
    return next(slot.start for slot in slots if slot.what == "Mid-day check")


def cuts_after_check(slots: tuple[Slot, ...]) -> int:
    """The minutes the cut plan of a day with these slots gives back after its mid-day check."""
    return sum(cut.minutes for cut in cuts_of(slots) if cut.start >= midday_check(slots))


def cut_plan(track: Track) -> list[Cut]:
    """The track's cut plan (cuts_of its slots)."""
    return cuts_of(track.slots)


def cuts_of(slots: tuple[Slot, ...]) -> list[Cut]:
    """What to cut when the room runs late, in the day's clock order: the extra lessons (a second session), the
    exercises as homework (each objective marked keeps_exercise keeps its first), one self-check question a lesson
    instead of two (before the mid-day check, and from it on), the walk-throughs (their pages given as reading); then,
    until the cuts after the mid-day check give back HALF_DAY_CUTS minutes (the check is where the plan is used),
    each lesson's run-along from the end of the day (the instructor runs its cells on the projector while the room
    watches)."""
    check = midday_check(slots)
    lesson_slots = [slot for slot in slots if slot.lesson]
    cuts = [Cut("lesson", slot.lesson.entry, "", slot.minutes, slot.start) for slot in lesson_slots
            if slot.lesson and slot.objective == "extra"]
    protected = {o.key for o in tables().objectives if o.keeps_exercise}
    for slot in lesson_slots:
        if slot.lesson is None or slot.objective == "extra":
            continue
        kept = slot_exercises(slot)[1 if slot.objective in protected else 0:]
        cuts += [Cut("exercise", slot.lesson.entry, label, minutes + debrief, slot.start)
                 for label, minutes, debrief in reversed(kept)]
    for before in (True, False):
        part = [slot for slot in lesson_slots if (slot.start < check) == before]
        saved = sum(slot.quiz - QUIZ_MINUTES for slot in part if slot.quiz > QUIZ_MINUTES)
        cuts += [Cut("quiz", "", "before" if before else "after", saved, part[0].start if before else check)
                 ] if saved else []
    cuts += [Cut("reading", slot.lesson.entry, "", slot.minutes, slot.start) for slot in lesson_slots
             if slot.lesson and slot.lesson.walk_through]
    for slot in reversed(lesson_slots):
        if sum(cut.minutes for cut in cuts if cut.start >= check) >= HALF_DAY_CUTS:
            break
        if slot.lesson and slot.objective != "extra" and slot.run_along:
            cuts.append(Cut("run-along", slot.lesson.entry, "", slot.run_along, slot.start))
    order = ("quiz", "reading", "exercise", "run-along", "lesson")
    return sorted(cuts, key=lambda cut: (cut.start, order.index(cut.what)))


def track_problems(track: Track) -> list[str]:
    """What is wrong with a track: an objective not taught, a lesson the room cannot run, a prerequisite neither
    taught before nor covered, a quiz that is not counted, a day too long, a full day without its buffer, a half day
    whose cut plan gives back too little."""
    name = f"{track.room.key} {track.day} day"
    problems = []
    taught = {entry for slot in track.slots if slot.lesson for entry in taught_entries(slot.lesson)}
    taught |= {lesson.entry for lesson in track.reading}
    for objective, entry in track_lessons(track.room, track.day):
        if entry not in taught:
            problems.append(f"{name}: the objective {objective!r} needs {entry}, which is not scheduled")
    before = {lesson.entry for lesson in track.reading}  # read before the day (the handout says so)
    for slot in track.slots:
        if not slot.lesson:
            continue
        if not slot.lesson.parallel and not (set(slot.lesson.platforms) & track.room.platforms):
            problems.append(f"{name}: {slot.lesson.entry} targets {list(slot.lesson.platforms)}, none of which "
                            f"this room runs ({sorted(track.room.platforms)})")
        for entry in slot.lesson.prerequisites:
            if entry not in before and entry not in slot.covers:
                problems.append(f"{name}: {slot.lesson.entry} needs {entry}, which is neither taught before it nor "
                                "covered (covers in tools/workshop/rooms.yml)")
        if slot.quiz != slot.lesson.questions * QUIZ_MINUTES:
            problems.append(f"{name}: the quiz of {slot.lesson.entry} is not counted in its slot")
        before.update(taught_entries(slot.lesson))
    if track.length > track.limit:
        problems.append(f"{name}: {track.length} minutes, more than the {track.limit} of a {track.day} day")
    if track.day == "full" and track.buffer < FULL_DAY_BUFFER:
        problems.append(f"{name}: a buffer of {track.buffer} minutes, less than the {FULL_DAY_BUFFER} a full day "
                        "keeps free")
    cuts = sum(cut.minutes for cut in cut_plan(track))
    if track.day == "half" and cuts < HALF_DAY_CUTS:
        problems.append(f"{name}: its cut plan gives back {cuts} minutes, less than the {HALF_DAY_CUTS} a half day "
                        "needs")
    late = cuts_after_check(track.slots)
    if late < HALF_DAY_CUTS:
        problems.append(f"{name}: its cut plan gives back {late} minutes after the mid-day check, less than the "
                        f"{HALF_DAY_CUTS} the check may ask for")
    return problems

