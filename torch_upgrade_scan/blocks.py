"""The code blocks of documentation files: Markdown (and Quarto) fences, and reStructuredText's code directives
and `::` literal blocks. Each block is (offset, indent, language, lines): its line i (from 1) is line offset + i of the
file, and its column c is column indent + c (a block is dedented: a Markdown fence that holds an excerpt of a
function body, four spaces in, parses); the language is lower case, "" where none
is named and "literal" for an rST literal block."""

import re

Block = tuple[int, int, str, list[str]]

FENCE = re.compile(r"^\s*(```+|~~~+)\s*\{?([\w+-]*)")
# .. code-block:: python, .. code:: bash, .. sourcecode:: py (the language may be left out)
RST_DIRECTIVE = re.compile(r"^(\s*)\.\.\s+(?:code-block|code|sourcecode)::\s*([\w+-]*)\s*$")
RST_OPTION = re.compile(r"^\s*:[\w-]+:")  # :caption: and the like, right after the directive
RST_COMMENT_OR_DIRECTIVE = re.compile(r"^\s*\.\.(?:\s|$)")


def markdown_blocks(lines: list[str]) -> list[Block]:
    blocks: list[Block] = []
    fence, start, language, block = None, 0, "", []
    for number, line in enumerate(lines, start=1):
        opened = FENCE.match(line)
        if fence is None and opened:
            fence, language, block, start = opened.group(1), opened.group(2).lower(), [], number
        elif fence is not None and line.strip().startswith(fence):
            depth, body = dedented(block)
            blocks.append((start, depth, language, body))
            fence = None
        elif fence is not None:
            block.append(line)
    return blocks


def indent_of(line: str) -> int:
    return len(line) - len(line.lstrip())


def dedented(lines: list[str]) -> tuple[int, list[str]]:
    """(the indent removed, the lines) of a block without its common leading indent."""
    depth = min((indent_of(line) for line in lines if line.strip()), default=0)
    return depth, [line[depth:] for line in lines]


def indented_block(lines: list[str], first: int, outer: int) -> tuple[int, int, list[str]]:
    """The lines from index `first` indented deeper than `outer` (blank lines inside kept), dedented; returns
    (index after the block, the indent removed, its lines) without trailing blank lines."""
    end = first
    while end < len(lines) and (not lines[end].strip() or indent_of(lines[end]) > outer):
        end += 1
    while end > first and not lines[end - 1].strip():
        end -= 1
    depth, body = dedented(lines[first:end])
    return end, depth, body


def rst_blocks(lines: list[str]) -> list[Block]:
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        directive = RST_DIRECTIVE.match(line)
        literal = (
            not directive
            and line.rstrip().endswith("::")
            and not RST_COMMENT_OR_DIRECTIVE.match(line)
        )
        if not directive and not literal:
            index += 1
            continue
        outer = indent_of(line)
        language = directive.group(2).lower() if directive else ""
        first = index + 1
        while directive and first < len(lines) and RST_OPTION.match(lines[first]):
            first += 1
        while first < len(lines) and not lines[first].strip():
            first += 1
        if first >= len(lines) or indent_of(lines[first]) <= outer:
            index = first  # no indented body: nothing to read
            continue
        end, depth, body = indented_block(lines, first, outer)
        blocks.append((first, depth, language or "literal", body))
        index = end
    return blocks
