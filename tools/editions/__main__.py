"""The Chinese and Korean editions: Sphinx's gettext catalogs under locales/, one per page and language.

    python -m tools.editions update          extract the English messages of every page (Sphinx's gettext builder,
                                             nothing executed) and merge them into locales/<lang>/LC_MESSAGES/
                                             <page>.po: new messages arrive empty, changed ones fuzzy with their
                                             previous English, gone ones are dropped
    python -m tools.editions check           exit 1 and name every translated message whose translation breaks the
                                             English's markup (code, roles, link targets, math), leaves a glossary
                                             term untranslated, or differs from the same sentence's on another page;
                                             a message without a translation (missing, empty or fuzzy) passes: the
                                             edition shows it in English and says so on its page
    python -m tools.editions check --complete
                                             the same, and also every message an edition shows in English (the
                                             weekly workflow runs it)
    python -m tools.editions check --page P  the same, for one page (docname, such as notebooks/graphs/cond-in-graphs)
    python -m tools.editions build           render each edition into _build/html/<lang>/ from the executions the
                                             English build cached (run `make book` first)
    python -m tools.editions notebooks OUT   write each edition's notebooks, prose translated, into OUT/<lang>/

The editions are listed once, as `course_editions` in _config.yml. `check` compares the catalogs with the English
as it is now (a fresh extraction): a changed English sentence shows in English in every edition (its page counts
it, the edition's front page lists the page) until the catalog is updated and the sentence translated again, and
only `check --complete` fails on it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tools.course import CourseError
from tools.editions.build import build, build_side_by_side
from tools.editions.catalogs import LOCALES, editions
from tools.editions.extract import update
from tools.editions.gate import check
from tools.editions.notebooks import student_branch_folder, write_notebooks, write_student_notebooks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.editions", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("update", help="merge the English into every edition's catalogs")
    check_parser = commands.add_parser("check", help="fail on a broken translation (--complete: a missing or fuzzy "
                                                     "one too)")
    check_parser.add_argument("--page", action="append", help="a docname; repeat for several")
    check_parser.add_argument("--complete", action="store_true",
                              help="also fail on every message shown in English (missing, empty or fuzzy)")
    build_parser = commands.add_parser("build", help="render each edition into _build/html/<lang>/")
    build_parser.add_argument("--language", action="append", help="one edition; repeat for several")
    build_parser.add_argument("--jobs", type=int, default=1, help="editions rendered side by side (default 1)")
    notebooks_parser = commands.add_parser("notebooks", help="write each edition's notebooks into OUT/<lang>/")
    notebooks_parser.add_argument("out", type=Path)
    args = parser.parse_args(argv)
    try:
        if args.command == "update":
            touched = update()
            print(f"updated {len(touched)} catalogs under {LOCALES}/")
            return 0
        if args.command == "build":
            if args.jobs < 1:
                raise CourseError(f"--jobs must be 1 or more, not {args.jobs}")
            known = [each.language for each in editions()]
            unknown = [language for language in args.language or [] if language not in known]
            if unknown:
                known_list = ', '.join(known)
                raise CourseError(f"no edition {', '.join(unknown)} in _config.yml's course_editions ({known_list})")
            selected = args.language or known
            if args.jobs > 1 and len(selected) > 1:
                build_side_by_side(selected, args.jobs)
            else:
                build(languages=selected)
            return 0
        if args.command == "notebooks":
            for each in editions():
                written = write_notebooks(args.out / each.language, each.language)
                students = write_student_notebooks(args.out / student_branch_folder(each.language), each.language)
                print(f"wrote {len(written)} notebooks and {len(students)} student copies into "
                      f"{args.out / each.language}")
            return 0
        problems = check(pages=args.page, complete=args.complete)
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} problems in the editions' catalogs", file=sys.stderr)
        return 1
    if args.complete:
        print("every edition translates every message of every page")
    else:
        print("every translation keeps its English's markup and glossary terms (messages without one show in "
              "English: `check --complete` lists them)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
