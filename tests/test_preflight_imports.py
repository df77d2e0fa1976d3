"""The pre-flight after a failed install or setup cell: each of its cells imports the modules it uses.

A learner on an old torch runs the pre-flight from the cell under the setup cell (the notebook says so), so nothing
the setup cell imports is there. Read statically, without torch: a cell that uses a module (a name some cell of the
pre-flight or the setup cell imports) must import it itself. Before this test, the Inductor cell used `platform`,
which only the setup cell imported, and stopped with a NameError on torch 2.11.0.
"""

from __future__ import annotations

import ast

from tools.author.stamp import OPENING, snippet_source
from tools.course import ROOT, cell_source, cell_tags, read_notebook

PREFLIGHT = ROOT / "notebooks" / "workshop" / "preflight.ipynb"


def imported(tree: ast.AST) -> set[str]:
    """The names a piece of code binds by importing."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return names


def used(tree: ast.AST) -> set[str]:
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}


def check_cells() -> list[tuple[int, ast.Module]]:
    """The pre-flight's own code cells, its stamped plumbing among them (not the install and setup cells), parsed."""
    return [(index, ast.parse(cell_source(cell))) for index, cell in enumerate(read_notebook(PREFLIGHT)["cells"])
            if cell["cell_type"] == "code" and not {f"stamp:{name}" for name in OPENING} & set(cell_tags(cell))]


def missing_imports(cells: list[tuple[int, ast.Module]], modules: set[str]) -> list[str]:
    return [f"cell {index} uses {name} without importing it" for index, tree in cells
            for name in sorted(used(tree) & modules - imported(tree))]


def test_each_cell_imports_the_modules_it_uses() -> None:
    cells = check_cells()
    modules = imported(ast.parse(snippet_source("setup")))
    for _, tree in cells:
        modules |= imported(tree)
    assert {"platform", "torch", "sys"} <= modules, modules
    assert missing_imports(cells, modules) == []


def test_a_cell_that_leans_on_the_setup_cell_is_found() -> None:
    """The check itself, on the cell the issue found: `platform.system()` with no import of platform."""
    cell = [(18, ast.parse('COMPILER_FIX = {"Darwin": "xcode-select"}.get(platform.system(), "g++")'))]
    assert missing_imports(cell, {"platform"}) == ["cell 18 uses platform without importing it"]
