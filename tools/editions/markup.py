"""What a translation must keep of its English: the markup it carries over verbatim (code, roles, link targets,
math, placeholders), the prose left once that is taken out, and emphasis CommonMark leaves unrendered."""

from __future__ import annotations

import re
from collections import Counter

from markdown_it import MarkdownIt

# Markup a translation must carry over unchanged, found in this order (each kind is taken out of the text before the
# next is looked for, so that a role's backticks are not read as code, nor code's dollars as math).
MARKUP = {
    "role": re.compile(r"\{[a-z:-]+\}`[^`]*`"),
    "inline code": re.compile(r"(`+)(.+?)\1"),
    "link target": re.compile(r"\]\(([^)\s]+)\)"),
    "math": re.compile(r"\$[^$\n]+\$"),
    "placeholder": re.compile(r"\{[a-z_]+\}"),
}
# Not prose for the glossary: HTML tags (their attributes), and English in double quotes that the translation keeps
# verbatim ("No space left on device"); a quoted heading or question that the translation translates is prose.
HTML = re.compile(r"<[^>]+>")
QUOTED = re.compile(r'"[^"\n]*"')

_MARKDOWN = MarkdownIt("commonmark")


def markup(text: str) -> Counter[str]:
    """The pieces of markup a translation keeps verbatim, counted."""
    pieces: Counter[str] = Counter()
    for kind, pattern in MARKUP.items():
        for match in pattern.finditer(text):
            pieces[f"{kind} {match.group(0)}"] += 1
        text = pattern.sub(" ", text)
    return pieces


def prose(text: str, other: str | None = None) -> str:
    """The text without its markup, HTML tags and the double-quoted passages that `other` (the English of a
    translation, or the translation of an English message) holds verbatim: where a term is prose to translate.
    Without `other`, every quoted passage is taken out."""
    text = _without_markup(text)
    kept = text if other is None else _without_markup(other)
    return QUOTED.sub(lambda quoted: " " if quoted.group(0)[1:-1] in kept else quoted.group(0), text)


def _without_markup(text: str) -> str:
    for pattern in [*MARKUP.values(), HTML]:
        text = pattern.sub(" ", text)
    return text


def has_words(text: str) -> bool:
    """Whether the text has prose to translate (a letter outside its markup), not only numbers, times, code, links."""
    return re.search(r"[^\W\d_]", prose(text)) is not None


def stray_emphasis(text: str) -> int:
    """How many `*` or `_` markers a text leaves unrendered: CommonMark will not close `**` after punctuation or
    a code span when a letter follows (`**时间：**后`, `**`x`**는`), a frequent break in CJK text."""
    rendered = re.sub(r"<code>.*?</code>", "", _MARKDOWN.renderInline(text))
    return len(re.findall(r"\*\*|(?<![\w*])\*(?!\s)", rendered))
