"""A module's source cut down to what the local rules read: its imports and the top-level statements that hold
one of their trigger patterns or a name that a triggering import binds; every other line is left blank, so
that lines and columns stay where they were. Most selected files are parsed this way (a tenth of their text).

Only for files where every rule whose trigger the file holds is local (reads names where they are used); a
rule that pairs statements or reads file-wide facts (ports, process groups, compiles, the profiler) gets the
whole module."""

import bisect
import re

from torch_upgrade_scan.prefilter import BACKEND_HELPER, PYTHON_NEEDS

# The rules whose findings come from one statement and the imports that bind its names.
LOCAL_RULES = {
    "torchscript",
    "dist-nn-functional",
    "stream-capturing",
    "green-context-positional",
    "magma",
    "defer-layout-freezing",
    "cu128-wheels",
    "torchcomms-p2p",  # pairs calls of one scope, each of which holds its trigger
}
# A rule's pattern for the statements it reads, where its pre-check's would miss some: an imported isend has
# no "isend(" where it is imported.
STATEMENT_PATTERNS = {"torchcomms-p2p": r"\bi(?:send|recv)\b"}


def trigger_patterns(rules: set) -> "re.Pattern[str]":
    """One pattern for what the rules' pre-checks look for (their patterns where given, else their words)."""
    parts = []
    for rule in sorted(rules):
        need = PYTHON_NEEDS[rule]
        sources = [p.pattern for p in need.any_of] or [re.escape(word) for word in need.words]
        parts += [STATEMENT_PATTERNS.get(rule) or "|".join(source.decode() for source in sources)]
    return re.compile("|".join(parts))


LOCAL_PATTERNS = trigger_patterns(LOCAL_RULES)
# A line that may start a top-level statement (pieces.py's test, as one pattern over the whole text).
TOP_LINE = re.compile(r"^[^\s#)\]}]", re.MULTILINE)
CONTINUES = re.compile(r"(?:else|elif|except|finally)\b")
# Comments and strings in order, so that a quote inside one is no string's start; group 1: a triple-quoted one.
STRINGS = re.compile(
    r"#[^\n]*"
    r"|(\"\"\"(?:[^\"\\]|\\.|\"(?!\"\"))*\"\"\"|'''(?:[^'\\]|\\.|'(?!''))*''')"
    r"|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'",
    re.DOTALL,
)
IMPORT_LINE = re.compile(r"^[ \t]*(?:from[ \t]+[\w.]+[ \t]+import\b|import\b)", re.MULTILINE)
# An import statement: `import a.b as c, d` or `from m import (x as y,\n z)`; group 1: what follows `import`.
IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+[\w.]+[ \t]+)?import[ \t]+(\([^)]*\)|(?:[^\n\\]|\\\n)*)", re.MULTILINE
)
BOUND = re.compile(r"([\w.]+)(?:\s+as\s+(\w+))?")
DEFINITION = re.compile(r"(?:async\s+def|def|class|@)")
# A class longer than this is cut member by member (see kept_members); group 1: the body's indentation.
CLASS_CHARS = 4000
NESTED_CLASS = re.compile(r"[ \t]*class\b")
MEMBER = re.compile(r"^([ \t]+)(?:async\s+def|def|class|@)\b", re.MULTILINE)


def all_local(data: bytes) -> bool:
    """Whether every rule that the file's bytes can trigger is a local rule (and no compile can make a dist.nn
    collective break, and no function returns a backend string for another file: those need the whole module)."""
    if b"fullgraph" in data and PYTHON_NEEDS["dist-nn-functional"].seen(data):
        return False
    others = [need for rule, need in PYTHON_NEEDS.items() if rule not in LOCAL_RULES]
    return not any(need.seen(data) for need in [*others, BACKEND_HELPER])


def string_interiors(code: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the triple-quoted strings that span lines: no statement starts inside one."""
    return [
        match.span(1)
        for match in STRINGS.finditer(code)
        if match.group(1) and "\n" in match.group(1)
    ]


def within(interiors: list, at: int) -> bool:
    """Whether offset `at` is inside one of the (start, end) spans, which are in order."""
    index = bisect.bisect_right(interiors, (at, at))
    return any(first < at < last for first, last in interiors[max(index - 1, 0) : index + 1])


def statements(code: str, interiors: list, start: int = 0, end: int = -1, line: "re.Pattern[str]" = TOP_LINE):
    """(start, end) offsets of the statements that `line` finds (top-level ones by default) in code[start:end],
    in order; the first holds what comes before the second's start."""
    end = len(code) if end < 0 else end
    starts, inside = [start], 0
    for match in line.finditer(code, start, end):
        at = match.start()
        if at == start:
            continue
        while inside < len(interiors) and interiors[inside][1] <= at:
            inside += 1
        if inside < len(interiors) and interiors[inside][0] < at:
            continue  # a line of a string's text
        before = code[code.rfind("\n", 0, at - 1) + 1 : at - 1]
        if CONTINUES.match(code, at) or before.startswith("@") or before.endswith("\\"):
            continue
        starts.append(at)
    return list(zip(starts, [*starts[1:], end], strict=True))


def bound_names(code: str) -> set[str]:
    """The names that imports holding a trigger pattern bind (`from torch.jit import script` binds `script`;
    `import torch.jit as tj` binds `tj`)."""
    names: set[str] = set()
    for match in IMPORT.finditer(code):
        if not LOCAL_PATTERNS.search(match.group(0)):
            continue
        words = match.group(1).replace("\\\n", " ").strip("() \t\n")
        plain = not match.group(0).lstrip().startswith("from")
        for item in words.split(","):
            found = BOUND.search(item)
            if found and (found.group(2) or not plain):
                names.add(found.group(2) or found.group(1))
    return names


def kept_statements(code: str) -> str:
    """`code` with the top-level statements that no local rule reads left as blank lines: kept are the
    imports (and the top-level blocks that hold one), the statements that hold a local rule's trigger pattern,
    and those that name what a triggering import binds (a use, or a rebinding)."""
    names = bound_names(code)
    alias = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(names))) + r")\b") if names else None
    interiors = string_interiors(code)
    parts = []
    for start, end in statements(code, interiors):
        if not keeps(code, start, end, alias):
            parts.append("\n" * code.count("\n", start, end))
        elif NESTED_CLASS.match(code, start) and end - start > CLASS_CHARS:
            parts += kept_members(code, start, end, interiors, alias)
        else:
            parts.append(code[start:end])
    return "".join(parts)


def kept_members(code: str, start: int, end: int, interiors: list, alias: "re.Pattern[str] | None") -> list:
    """A large class cut like the module: what comes before its first method (or nested class) is kept, with
    that first one; each later statement of its body is kept where it holds a pattern or a name (a class's
    names are seen only by its own body's statements, which are kept where they hold them). A large nested
    class is cut the same way."""
    body = code.find("\n", start) + 1  # (a member starts after the class's own line)
    member = next((m for m in MEMBER.finditer(code, body, end) if not within(interiors, m.start())), None)
    if not member:
        return [code[start:end]]
    at = re.compile(rf"^{member.group(1)}[^\s#)\]}}]", re.MULTILINE)
    members = statements(code, interiors, member.start(), end, at)
    parts = [code[start : members[0][0]]]
    for index, (first, last) in enumerate(members):
        held = LOCAL_PATTERNS.search(code, first, last) or (alias and alias.search(code, first, last))
        if not (held or index == 0):
            parts.append("\n" * code.count("\n", first, last))
        elif NESTED_CLASS.match(code, first) and last - first > CLASS_CHARS:
            parts += kept_members(code, first, last, interiors, alias)
        else:
            parts.append(code[first:last])
    return parts


def keeps(code: str, start: int, end: int, alias: "re.Pattern[str] | None") -> bool:
    """Whether the statement at code[start:end] is kept (see kept_statements)."""
    if LOCAL_PATTERNS.search(code, start, end) or (alias and alias.search(code, start, end)):
        return True
    return not DEFINITION.match(code, start) and bool(IMPORT_LINE.search(code, start, end))
