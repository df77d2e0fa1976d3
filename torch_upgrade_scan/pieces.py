"""A large Python module parsed piece by piece: runs of whole top-level statements of about PIECE_CHARS characters
each, so that only one piece's syntax tree is alive at a time (the tree of a whole 10 MB module takes 1.4 GB, measured
here with ast.parse on Python 3.11)."""

import ast
import re
import warnings
from collections.abc import Iterator

# Sources longer than this are parsed in pieces of about this many characters.
PIECE_CHARS = 256_000
# A line that can start a top-level statement: not indented, not a comment, not a
# closing bracket and not a clause that continues the statement before it.
STATEMENT_START = re.compile(r"[^\s#)\]}]")
CONTINUES = re.compile(r"(?:else|elif|except|finally)\b")


def starts_statement(lines: list[str], index: int) -> bool:
    """Whether line `index` may start a top-level statement: a cut before it parses
    if the lines before it are whole statements (not after a decorator or a `\\`)."""
    line, before = lines[index], lines[index - 1]
    return (
        bool(STATEMENT_START.match(line))
        and not CONTINUES.match(line)
        and not before.startswith("@")
        and not before.endswith("\\")
    )


def cut_after(lines: list[str], start: int, chars: int) -> int:
    """The first line after `start` that may start a statement, once the lines
    from `start` hold `chars` characters (len(lines) when none does)."""
    held, index = 0, start
    while index < len(lines) and held < chars:
        held += len(lines[index]) + 1
        index += 1
    while index < len(lines) and not starts_statement(lines, index):
        index += 1
    return index


def parse_quietly(source: str) -> ast.Module:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarning in the code
        return ast.parse(source)


def pieces(code: str, chars: int = PIECE_CHARS) -> Iterator[tuple[int, ast.Module]]:
    """(first line, syntax tree) of each piece of a module, in order. A cut that
    does not parse (inside a string or brackets) doubles the piece, so the work
    stays linear; a SyntaxError from the last piece carries the module's line."""
    lines = code.split("\n")
    start = 0
    while start < len(lines):
        size = chars
        while True:
            end = cut_after(lines, start, size)
            try:
                tree = parse_quietly("\n".join(lines[start:end]))
            except SyntaxError as error:
                if end < len(lines):
                    size *= 2
                    continue
                if error.lineno is not None:
                    error.lineno += start
                raise
            yield start + 1, tree
            start = end
            break
