"""The workshop's rooms and learning objectives: rooms.yml beside this module, read and checked into typed tables."""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path
from typing import Any

from tools.course import PLATFORMS, CourseError, read_yaml

TABLES = Path(__file__).resolve().parent / "rooms.yml"


@dataclasses.dataclass(frozen=True)
class Room:
    key: str
    title: str
    audience: str
    platforms: frozenset[str]  # what every laptop in the room runs for real
    platform_lessons: tuple[str, ...]  # the lesson(s) on this room's hardware
    extras: tuple[str, ...]  # full day only, in order of preference, added while they fit
    colab: bool = False  # some participants work on Colab: every lesson starts with an install and a restart
    breakout: bool = False  # the platform lessons run side by side, one per group of laptops, in one slot


@dataclasses.dataclass(frozen=True)
class Objective:
    key: str
    text: str  # "By the end of the workshop, participants can ..."
    lessons: tuple[str, ...]  # what teaches it; "platform" lessons come from the room
    full_day_only: tuple[str, ...] = ()  # lessons a full day adds to it
    keeps_exercise: bool = False  # every day keeps this objective's shortest exercise, whatever the clock says
    half_day: bool = True  # False: only a full day has room for it
    half_day_walk_through: tuple[str, ...] = ()  # its lessons that a half day shows as a short walk-through


@dataclasses.dataclass(frozen=True)
class Tables:
    preflight: str  # the lesson participants run at home before the day
    rooms: tuple[Room, ...]
    objectives: tuple[Objective, ...]
    part_needs: dict[str, tuple[str, str]]  # lesson: (the platform a part of it needs, the note a room without it gets)
    covers: dict[str, str]  # prerequisite lesson: how to cover it in five minutes where a track does not teach it
    overlaps: dict[str, tuple[tuple[str, str], ...]]  # lesson: (section heading, the lesson that teaches it too), ...


def _text(item: dict[str, Any], key: str, where: str) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value:
        raise CourseError(f"{where} needs '{key}', a non-empty text")
    return value


def _entries(item: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = item.get(key, [])
    if not isinstance(value, list) or not all(isinstance(entry, str) and entry for entry in value):
        raise CourseError(f"{where}: '{key}' must be a list of lesson entries")
    return tuple(value)


def _flag(item: dict[str, Any], key: str, where: str, default: bool) -> bool:
    value = item.get(key, default)
    if not isinstance(value, bool):
        raise CourseError(f"{where}: '{key}' must be true or false")
    return value


def _items(data: dict[str, Any], key: str, known: set[str]) -> list[dict[str, Any]]:
    items = data.get(key)
    if not isinstance(items, list) or not items or not all(isinstance(item, dict) for item in items):
        raise CourseError(f"'{key}' must be a non-empty list of mappings")
    for item in items:
        unknown = sorted(set(item) - known)
        if unknown:
            raise CourseError(f"{key} {item.get('key')!r} has unknown fields {unknown}")
    return items


def _room(item: dict[str, Any]) -> Room:
    where = f"room {item.get('key')!r}"
    platforms = frozenset(_entries(item, "platforms", where))
    if not platforms or not platforms <= set(PLATFORMS):
        raise CourseError(f"{where}: 'platforms' must name some of {list(PLATFORMS)}")
    return Room(_text(item, "key", "a room"), _text(item, "title", where), _text(item, "audience", where), platforms,
                _entries(item, "platform_lessons", where), _entries(item, "extras", where),
                _flag(item, "colab", where, False), _flag(item, "breakout", where, False))


def _objective(item: dict[str, Any]) -> Objective:
    where = f"objective {item.get('key')!r}"
    return Objective(_text(item, "key", "an objective"), _text(item, "text", where), _entries(item, "lessons", where),
                     _entries(item, "full_day_only", where), _flag(item, "keeps_exercise", where, False),
                     _flag(item, "half_day", where, True), _entries(item, "half_day_walk_through", where))


def _overlaps(data: dict[str, Any]) -> dict[str, tuple[tuple[str, str], ...]]:
    listed = data.get("overlaps") or {}
    if not isinstance(listed, dict):
        raise CourseError("'overlaps' must map lesson entries to a list of sections and the lessons that teach them")
    found = {}
    for entry, sections in listed.items():
        if not isinstance(sections, list) or not all(isinstance(item, dict) for item in sections):
            raise CourseError(f"overlaps of {entry} must be a list of mappings with 'section' and 'taught_in'")
        found[entry] = tuple((_text(item, "section", f"overlaps of {entry}"),
                              _text(item, "taught_in", f"overlaps of {entry}")) for item in sections)
    return found


def _part_needs(data: dict[str, Any]) -> dict[str, tuple[str, str]]:
    listed = data.get("part_needs") or {}
    if not isinstance(listed, dict):
        raise CourseError("'part_needs' must map lesson entries to a platform and a note")
    found = {}
    for entry, need in listed.items():
        if not isinstance(need, dict) or need.get("platform") not in PLATFORMS:
            raise CourseError(f"part_needs of {entry} needs a 'platform', one of {list(PLATFORMS)}")
        found[entry] = (need["platform"], _text(need, "note", f"part_needs of {entry}"))
    return found


@functools.cache
def tables(path: Path = TABLES) -> Tables:
    """The rooms, objectives, platform notes and covers of rooms.yml, checked (read once)."""
    data = read_yaml(path)
    try:
        return checked_tables(data)
    except CourseError as error:
        raise CourseError(f"{path}: {error}") from None


def checked_tables(data: Any) -> Tables:
    """The tables of rooms.yml's parsed YAML, or a CourseError that says what is wrong."""
    if not isinstance(data, dict):
        raise CourseError("must be a mapping of preflight, rooms, objectives, part_needs, covers and overlaps")
    rooms = tuple(_room(item) for item in _items(data, "rooms", {f.name for f in dataclasses.fields(Room)}))
    objectives = tuple(_objective(item)
                       for item in _items(data, "objectives", {f.name for f in dataclasses.fields(Objective)}))
    if [o.key for o in objectives if o.key == "platform"] != ["platform"]:
        raise CourseError("needs one objective 'platform' (each room's platform lessons teach it)")
    for kind, keys in (("room", [r.key for r in rooms]), ("objective", [o.key for o in objectives])):
        if len(set(keys)) != len(keys):
            raise CourseError(f"two {kind}s share a key ({', '.join(keys)})")
    covers = data.get("covers") or {}
    if not isinstance(covers, dict) or not all(isinstance(text, str) and text for text in covers.values()):
        raise CourseError("'covers' must map lesson entries to the text that covers them")
    return Tables(_text(data, "preflight", "the top level"), rooms, objectives, _part_needs(data), covers,
                  _overlaps(data))
