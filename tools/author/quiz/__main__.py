"""The quiz's command line: list the lessons with questions, attach their quiz cells, write the room page.

    python -m tools.author.quiz list            every lesson with questions: chapter, number of questions (and of
                                                those a room is asked), lesson
    python -m tools.author.quiz attach          give each lesson with questions a "## Self-check quiz" section: the
                                                stamped quiz runtime (tools/snippets/quiz.py) and a cell of its
                                                questions as data; remove quiz cells where a lesson has none
    python -m tools.author.quiz room            write instructors/quiz-room.md: each lesson's room questions (at
                                                most ROOM_QUESTIONS) without their answers, for a projector or a
                                                printout; the instructor opens each answer

tests/content/ fails a notebook or page that differs from quizzes/. The quiz files are described in
tools/author/quiz/__init__.py, what is written in tools/author/quiz/render.py.
"""

from __future__ import annotations

import argparse
import sys

from tools.author.quiz import lesson_questions
from tools.author.quiz.render import ROOM_PAGE, attach, write_room_page
from tools.course import ROOT, CourseError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.author.quiz", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="every lesson with questions")
    commands.add_parser("attach", help="write each lesson's quiz cells")
    commands.add_parser("room", help=f"write {ROOM_PAGE.as_posix()}")
    args = parser.parse_args(argv)
    try:
        if args.command == "list":
            for entry, (quiz, questions) in lesson_questions().items():
                room = sum(question.room for question in questions)
                print(f"{quiz.chapter:24} {len(questions)} question(s), {room} in a room  {entry}.ipynb")
        elif args.command == "attach":
            for path in attach():
                print(f"wrote {path.relative_to(ROOT)}")
        else:
            write_room_page()
            print(f"wrote {ROOM_PAGE.as_posix()}")
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
