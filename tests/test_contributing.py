"""CONTRIBUTING.md reads in ten minutes and says only what is so: under 1,500 words, every path it names exists, every
`make` target it or a page of docs/ names is the Makefile's, every link resolves, docs/ is linked and never built
into the book, and the weekly table of docs/workflows.md has one row per job of .github/workflows/weekly.yml."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from tools.course import ROOT, toc_files

CONTRIBUTING = ROOT / "CONTRIBUTING.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
MAX_WORDS = 1500
CODE_SPAN = re.compile(r"`([^`\n]+)`")
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
LINK = re.compile(r"\]\(([^)\s]+)\)")
MAKE = re.compile(r"\bmake ([a-z][\w-]*)")
SUFFIXES = (".md", ".py", ".yml", ".yaml", ".txt", ".json", ".toml", ".ipynb", ".ini", ".cfg")
PLACEHOLDER = re.compile(r"[<>*{}…$]|^(_build|~|https?:|-)")


def _code(text: str) -> list[str]:
    """The code spans and fenced blocks of a Markdown text."""
    return CODE_SPAN.findall(FENCE.sub("", text)) + FENCE.findall(text)


def named_paths(text: str) -> list[str]:
    """What the code spans name as repository paths: a word with a slash or a file suffix, not a placeholder."""
    return [span.rstrip("/") for span in CODE_SPAN.findall(FENCE.sub("", text))
            if " " not in span and not PLACEHOLDER.search(span) and ("/" in span or span.endswith(SUFFIXES))]


def make_targets(text: str) -> set[str]:
    return {target for code in _code(text) for target in MAKE.findall(code)}


def makefile_targets() -> set[str]:
    return set(re.findall(r"(?m)^([a-z][\w-]*):", (ROOT / "Makefile").read_text(encoding="utf-8")))


def test_contributing_reads_in_ten_minutes() -> None:
    words = len(CONTRIBUTING.read_text(encoding="utf-8").split())
    assert words < MAX_WORDS, f"CONTRIBUTING.md has {words} words: move reference into docs/ and link it"


def test_every_path_contributing_names_exists() -> None:
    missing = [path for path in named_paths(CONTRIBUTING.read_text(encoding="utf-8")) if not (ROOT / path).exists()]
    assert missing == []


@pytest.mark.parametrize("page", [CONTRIBUTING, *DOCS], ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_make_target_named_exists(page: Path) -> None:
    assert make_targets(page.read_text(encoding="utf-8")) - makefile_targets() == set()


@pytest.mark.parametrize("page", [CONTRIBUTING, *DOCS], ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_link_resolves(page: Path) -> None:
    targets = [link.split("#")[0] for link in LINK.findall(page.read_text(encoding="utf-8"))
               if not link.startswith(("http:", "https:", "#"))]
    assert [target for target in targets if not (page.parent / target).exists()] == []


def test_the_checks_would_see_a_missing_path_or_target() -> None:
    text = "Run `make no-such-target`, read `tools/no_such.py` and `docs/`, not `notebooks/<chapter>/<name>.ipynb`."
    assert named_paths(text) == ["tools/no_such.py", "docs"]
    assert make_targets(text) - makefile_targets() == {"no-such-target"}


def test_docs_are_linked_from_contributing_and_never_built_into_the_book() -> None:
    text = CONTRIBUTING.read_text(encoding="utf-8")
    assert DOCS and [page.name for page in DOCS if f"](docs/{page.name})" not in text] == []
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    assert config["only_build_toc_files"] is True, "without it the strict build reads docs/ and fails on orphans"
    assert [entry for entry in toc_files() if entry.startswith("docs/")] == []


def _table_rows(text: str, heading: str) -> list[str]:
    """The first cell of each row of the first table under a heading, without its backticks."""
    section = text.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| ---")]
    return [row.split("|")[1].strip().strip("`") for row in rows[1:]]


def test_the_weekly_table_has_one_row_per_job_of_the_workflow() -> None:
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "weekly.yml").read_text(encoding="utf-8"))
    rows = _table_rows((ROOT / "docs" / "workflows.md").read_text(encoding="utf-8"), "## Weekly checks")
    assert rows == list(workflow["jobs"]), "docs/workflows.md: one row per job of weekly.yml, in its order"


def test_the_readme_promises_only_what_the_scanners_readme_has() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    scanner = (ROOT / "torch_upgrade_scan" / "README.md").read_text(encoding="utf-8")
    if "TorchFix" in readme:
        assert "TorchFix" in scanner, "README.md promises a TorchFix comparison in torch_upgrade_scan/README.md"
