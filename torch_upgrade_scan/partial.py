"""A module's source cut down to what the local rules read: its imports and the top-level statements that hold
one of their trigger patterns or a name that a triggering import binds; every other line is left blank, so
that lines and columns stay where they were. Large classes and functions are cut the same way, statement by
statement of their bodies. On torch 2.12's own sources, 118 of the 139 files that a rule
can read are parsed this way, 0.8 of their 5.1 MB kept (the rest left as blank lines; measured here).

Only for files where every rule whose trigger the file holds is local (reads names where they are used); a
rule that pairs statements or reads file-wide facts (ports, process groups, compiles, the profiler) gets the
whole module."""

import bisect
import re

from torch_upgrade_scan.prefilter import LOCAL_RULES, PYTHON_NEEDS

# A rule's words for the statements it reads, where its pre-check's would miss some: an imported isend has
# no "isend(" where it is imported.
STATEMENT_WORDS = {"torchcomms-p2p": (b"isend", b"irecv")}


def statement_patterns(rules: set) -> list:
    """What the rules' pre-checks look for (their patterns where given, else their words), one pattern each:
    each starts with a literal word, which the regex engine seeks fast over a whole module."""
    patterns = []
    for rule in sorted(rules):
        need = PYTHON_NEEDS[rule]
        words = STATEMENT_WORDS.get(rule, need.words)
        sources = [p.pattern for p in need.any_of] if rule not in STATEMENT_WORDS else []
        patterns += [re.compile(source.decode()) for source in sources or map(re.escape, words)]
    return patterns


PATTERNS = statement_patterns(LOCAL_RULES)
ANY_PATTERN = re.compile("|".join(p.pattern for p in PATTERNS))  # for short texts
# A line that may start a statement, its indentation given (pieces.py's test, as one pattern over the text).
LINE_START = r"\n{}(?=[^\s#)\]}}])"
TOP_LINE = re.compile(LINE_START.format(""))
CONTINUES = re.compile(r"(?:else|elif|except|finally)\b")
# what comes before a quote on its line: strings that close there, or a comment or an open string (group 1)
LINE_PREFIX = re.compile(r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|([#\"'])")
IMPORT_WORD = re.compile(r"import\b")
# An import statement's start, up to `import`; then what it imports: `a.b as c, d` or `(x as y,\n z)`.
IMPORT_HEAD = re.compile(r"[ \t]*(?:from[ \t]+[\w.]+[ \t]+)?")
IMPORTED = re.compile(r"[ \t]+(\([^)]*\)|(?:[^\n\\]|\\\n)*)")
BOUND = re.compile(r"([\w.]+)(?:\s+as\s+(\w+))?")
DEFINITION = re.compile(r"(?:async\s+def|def|class|@)")
# A class longer than this is cut member by member (see kept_members); group 1: the body's indentation.
CLASS_CHARS = 4000
NESTED_CLASS = re.compile(r"[ \t]*class\b")
MEMBER = re.compile(r"\n([ \t]+)(?:async\s+def|def|class|@)\b")
# A function longer than this is cut statement by statement (see kept_body): its decorators and `def` line,
# the line that ends its signature (`):`), the indentation of its body's first line.
FUNCTION_CHARS = 2000
FUNCTION = re.compile(r"(?:[ \t]*@[^\n]*\n)*[ \t]*(?:async[ \t]+)?def\b")
SIGNATURE_END = re.compile(r":[ \t]*(?:#[^\n]*)?\n")
BODY_LINE = re.compile(r"\n([ \t]+)[^\s#]")
INDENTED_DEFINITION = re.compile(r"[ \t]*(?:async\s+def|def|class|@)")


def string_interiors(code: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the triple-quoted strings that span lines, in order: no statement starts inside
    one. A triple quote in a comment or inside a one-line string opens none."""
    spans, at = [], 0
    ahead = {quote: code.find(quote) for quote in ('"""', "'''")}  # the next of each, or -1
    while (first := next_triple(code, at, ahead)) >= 0:
        line = max(code.rfind("\n", 0, first) + 1, at)
        if any(m.group(1) for m in LINE_PREFIX.finditer(code, line, first)):
            at = first + 3  # in a comment or a string
            continue
        last = closing(code, code[first : first + 3], first + 3)
        if "\n" in code[first:last]:
            spans.append((first, last))
        at = last
    return spans


def next_triple(code: str, at: int, ahead: dict) -> int:
    """The offset of the next triple quote from `at` (-1: none); `ahead` holds the next of each kind found so
    far, searched again once passed (two searches for a word are faster than one for a pattern of two)."""
    for quote, offset in ahead.items():
        if 0 <= offset < at:
            ahead[quote] = code.find(quote, at)
    return min((offset for offset in ahead.values() if offset >= 0), default=-1)


def closing(code: str, quote: str, at: int) -> int:
    """The offset after the triple quote that closes a string opened before `at` (the end: none does)."""
    while (found := code.find(quote, at)) >= 0:
        back = found
        while code[back - 1] == "\\":
            back -= 1
        if (found - back) % 2 == 0:
            return found + 3
        at = found + 1
    return len(code)


def within(interiors: list, at: int) -> bool:
    """Whether offset `at` is inside one of the (start, end) spans, which are in order."""
    index = bisect.bisect_right(interiors, (at, at))
    return any(first < at < last for first, last in interiors[max(index - 1, 0) : index + 1])


def statements(code: str, interiors: list, start: int = 0, end: int = -1, line: "re.Pattern[str]" = TOP_LINE):
    """(start, end) offsets of the statements whose lines `line` finds (top-level ones by default) in
    code[start:end], in order; the first holds what comes before the second's start."""
    end = len(code) if end < 0 else end
    starts, inside = [start], 0
    for match in line.finditer(code, start, end):
        at = match.start() + 1  # the line's start, before its indentation
        while inside < len(interiors) and interiors[inside][1] <= at:
            inside += 1
        if inside < len(interiors) and interiors[inside][0] < at:
            continue  # a line of a string's text
        before = code[code.rfind("\n", 0, match.start()) + 1 : match.start()]
        if CONTINUES.match(code, match.end()) or before.lstrip().startswith("@") or before.endswith("\\"):
            continue
        starts.append(at)
    return list(zip(starts, [*starts[1:], end], strict=True))


def bound_names(code: str) -> set[str]:
    """The names that imports holding a trigger pattern bind (`from torch.jit import script` binds `script`;
    `import torch.jit as tj` binds `tj`)."""
    names: set[str] = set()
    for match in IMPORT_WORD.finditer(code):
        line = code.rfind("\n", 0, match.start()) + 1
        imported = IMPORTED.match(code, match.end())
        if not imported or not IMPORT_HEAD.fullmatch(code, line, match.start()):
            continue
        if not ANY_PATTERN.search(code, line, imported.end()):
            continue
        plain = not code[line : match.start()].strip()  # `import a.b` binds `a`: only `as` names count
        for item in imported.group(1).replace("\\\n", " ").strip("() \t\n").split(","):
            found = BOUND.search(item)
            if found and (found.group(2) or not plain):
                names.add(found.group(2) or found.group(1))
    return names


def positions(code: str) -> tuple[list[int], list[int]]:
    """The sorted offsets of the rules' patterns and of the names that triggering imports bind (a use, or a
    rebinding), and those of the word `import`."""
    found = [match.start() for pattern in PATTERNS for match in pattern.finditer(code)]
    for name in bound_names(code):
        for match in re.finditer(re.escape(name) + r"\b", code):
            at = match.start()
            if at == 0 or not (code[at - 1].isalnum() or code[at - 1] == "_"):
                found.append(at)
    return sorted(found), [match.start() for match in IMPORT_WORD.finditer(code)]


def holds(offsets: list[int], start: int, end: int) -> bool:
    """Whether one of the sorted offsets is in [start, end)."""
    index = bisect.bisect_left(offsets, start)
    return index < len(offsets) and offsets[index] < end


def blank(code: str, start: int, end: int) -> str:
    return "\n" * code.count("\n", start, end)


def kept_statements(code: str) -> str:
    """`code` with the top-level statements that no local rule reads left as blank lines: kept are the
    imports (and the top-level blocks that hold one), the statements that hold a local rule's trigger pattern,
    and those that name what a triggering import binds (a use, or a rebinding)."""
    triggers, imports = positions(code)
    interiors = string_interiors(code)
    parts = []
    for start, end in statements(code, interiors):
        if holds(triggers, start, end):
            parts += kept_block(code, start, end, interiors, (triggers, imports))
        elif holds(imports, start, end) and not DEFINITION.match(code, start):
            parts.append(code[start:end])
        else:
            parts.append(blank(code, start, end))
    return "".join(parts)


def kept_block(code: str, start: int, end: int, interiors: list, offsets: tuple) -> list:
    """A kept statement: a large class or function cut (kept_members, kept_body), any other whole."""
    if end - start > CLASS_CHARS and NESTED_CLASS.match(code, start):
        return kept_members(code, start, end, interiors, offsets)
    if end - start > FUNCTION_CHARS and FUNCTION.match(code, start):
        return kept_body(code, start, end, interiors, offsets)
    return [code[start:end]]


def kept_body(code: str, start: int, end: int, interiors: list, offsets: tuple) -> list:
    """A large function cut like the module: its decorators, signature and first statement are kept; each
    later statement of its body where it holds a pattern or a name, or an import (of a name that the kept
    statements may use; a nested function's imports are its own). Where the signature's end or the body's
    indentation is not where this expects, the function is kept whole (a cut that does not parse falls back to
    the whole module)."""
    triggers, imports = offsets
    define = FUNCTION.match(code, start)
    header = SIGNATURE_END.search(code, define.end(), end) if define else None
    first_line = BODY_LINE.search(code, header.end() - 1, end) if header else None
    if not (header and first_line) or within(interiors, header.start()):
        return [code[start:end]]
    line = re.compile(LINE_START.format(first_line.group(1)))
    body = first_line.start() + 1  # (comments before it stay with the signature)
    parts = [code[start:body]]
    for index, (first, last) in enumerate(statements(code, interiors, body, end, line)):
        imported = holds(imports, first, last) and not INDENTED_DEFINITION.match(code, first)
        if index == 0 or holds(triggers, first, last) or imported:
            parts += kept_block(code, first, last, interiors, offsets) if index else [code[first:last]]
        else:
            parts.append(blank(code, first, last))
    return parts


def kept_members(code: str, start: int, end: int, interiors: list, offsets: tuple) -> list:
    """A large class cut like the module: what comes before its first method (or nested class) is kept, with
    that first one; each later statement of its body is kept where it holds a pattern or a name (a class's
    names are seen only by its own body's statements, which are kept where they hold them). A large nested
    class or function is cut the same way."""
    triggers = offsets[0]
    body = code.find("\n", start)  # (a member starts after the class's own line)
    member = next((m for m in MEMBER.finditer(code, body, end) if not within(interiors, m.start() + 1)), None)
    if not member:
        return [code[start:end]]
    line = re.compile(LINE_START.format(member.group(1)))
    members = statements(code, interiors, member.start() + 1, end, line)
    parts = [code[start : members[0][0]]]
    for index, (first, last) in enumerate(members):
        if index == 0 or holds(triggers, first, last):
            parts += kept_block(code, first, last, interiors, offsets)
        else:
            parts.append(blank(code, first, last))
    return parts
