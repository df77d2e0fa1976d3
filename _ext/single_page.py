"""The single-page build (`make pdf` prints it, tools/editions/pdf.py) draws every node the site's pages draw.

Sphinx looks a node's HTML up under the builder's name, and falls back to the `html` entries only when no
extension registered any for `singlehtml`. sphinx-exercise registers its nodes for `singlehtml`, so the nodes that
other extensions register for `html` only (sphinx-jupyterbook-latex's HiddenCellNode beside every table of
contents, among them) had no visitor there, and the build stopped: "departing unknown node type: HiddenCellNode".
This gives `singlehtml` each `html` entry it lacks.
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx


def _share_html_visitors(app: Sphinx) -> None:
    handlers = app.registry.translation_handlers
    if app.builder.name == "singlehtml" and "singlehtml" in handlers:
        for node, visitors in handlers.get("html", {}).items():
            handlers["singlehtml"].setdefault(node, visitors)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("builder-inited", _share_html_visitors)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
