"""What a cell's outputs tell its run record: printed warnings and skips, and the deprecation gate they pass through."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

# A warning as Python prints it: "path:line: Category: message".
WARNING_LINE = re.compile(r"^(?P<where>\S.*?):(?P<line>\d+): (?P<category>[A-Za-z_]*Warning): (?P<message>.*)$")
GATED_WARNINGS = ("DeprecationWarning", "FutureWarning")
# A cell that exists to show a deprecation says so with this tag; the gate lets its warning through.
DEMONSTRATES_WARNING = "demonstrates-warning"
# Run in each kernel before a notebook's first cell. Python hides a DeprecationWarning that a
# library attributes to its own code, such as torch.jit.script's in 2.12, so a deprecated torch
# call in a cell would pass the gate unseen. This shows torch's deprecations when the first caller
# outside torch is the notebook's code, and keeps hiding those that torch raises while importing
# its own modules (2.13.0's torch.jit.script_method inside torch.compile, say).
SHOW_TORCH_DEPRECATIONS = r"""
import os as _os, sys as _sys, warnings as _warnings


def _course_showwarning(message, category, filename, lineno, file=None, line=None,
                        _show=_warnings.showwarning):
    in_torch = "torch" in _os.path.normpath(filename).split(_os.sep)
    if issubclass(category, DeprecationWarning) and in_torch:
        frame = _sys._getframe(1)
        while frame is not None and (frame.f_code.co_filename, frame.f_lineno) != (filename, lineno):
            frame = frame.f_back
        while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] == "torch":
            frame = frame.f_back
        if frame is None or frame.f_globals.get("__name__") != "__main__":
            return
    _show(message, category, filename, lineno, file, line)


_warnings.showwarning = _course_showwarning
_warnings.filterwarnings("always", category=DeprecationWarning, module=r"torch(\.|$)")
"""


def warnings_in(text: str) -> list[tuple[str, str]]:
    """Each (category, message) of the warnings Python printed into a cell's stderr."""
    found = []
    for line in text.splitlines():
        match = WARNING_LINE.match(line)
        if match:
            found.append((match["category"], match["message"].strip()))
    return found


def stream_text(outputs: Iterable[Any], name: str) -> str:
    """The text a cell printed to one stream ("stdout" or "stderr")."""
    return "".join(out.get("text", "") for out in outputs
                   if out.get("output_type") == "stream" and out.get("name") == name)


def printed_skip(outputs: Iterable[Any]) -> bool:
    """Whether a cell printed a "Skipped on ..." line (the setup cell's skip() helper)."""
    return any(line.startswith("Skipped on ") for line in stream_text(outputs, "stdout").splitlines())


def gate_message(notebook: str, cell: int, printed: list[tuple[str, str]], tags: Iterable[str]) -> str | None:
    """The deprecation gate: why a cell that printed a deprecation fails, or None when it passes."""
    gated = [f"{category}: {message}" for category, message in printed if category in GATED_WARNINGS]
    if not gated or DEMONSTRATES_WARNING in tags:
        return None
    return (f"{notebook}, code cell {cell}: the deprecation gate stops a cell that raises "
            f"{' / '.join(gated)}. Update the call, or, if the cell exists to show this warning, "
            f"tag it '{DEMONSTRATES_WARNING}' and say so in its prose.")
