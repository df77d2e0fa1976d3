"""The deprecation gate's decision (tools/records/gate.py), without a kernel: which printed warnings stop a cell, and
the code each kernel runs first so that torch's own deprecations are printed at all."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tools.records import gate

DEPRECATED = "/tmp/lesson.py:3: DeprecationWarning: old_api is deprecated, use new_api\n  old_api()\n"
FUTURE = "/opt/lib/module.py:10: FutureWarning: the default will change\n"
USER = "/tmp/lesson.py:4: UserWarning: mind the gap\n"


def test_printed_warnings_are_read_line_by_line() -> None:
    assert gate.warnings_in(DEPRECATED + FUTURE + USER + "plain text: no warning\n") == [
        ("DeprecationWarning", "old_api is deprecated, use new_api"),
        ("FutureWarning", "the default will change"),
        ("UserWarning", "mind the gap"),
    ]


@pytest.mark.parametrize("printed", [DEPRECATED, FUTURE, DEPRECATED + USER])
def test_a_deprecation_or_future_warning_stops_the_cell(printed: str) -> None:
    message = gate.gate_message("notebooks/a/b.ipynb", 4, gate.warnings_in(printed), ["hide-input"])
    assert message is not None and message.startswith("notebooks/a/b.ipynb, code cell 4: the deprecation gate stops")
    assert gate.DEMONSTRATES_WARNING in message, "the message names the way out"


@pytest.mark.parametrize(("printed", "tags"), [
    (USER, []),  # another category
    ("", []),  # nothing printed
    (DEPRECATED, [gate.DEMONSTRATES_WARNING]),  # a cell that exists to show it
])
def test_other_cells_pass_the_gate(printed: str, tags: list[str]) -> None:
    assert gate.gate_message("notebooks/a/b.ipynb", 4, gate.warnings_in(printed), tags) is None


def test_streams_and_skips_are_read_from_the_outputs() -> None:
    outputs = [{"output_type": "stream", "name": "stdout", "text": "Skipped on cpu: needs CUDA\n"},
               {"output_type": "stream", "name": "stderr", "text": USER},
               {"output_type": "execute_result", "data": {"text/plain": "1"}}]
    assert gate.stream_text(outputs, "stderr") == USER
    assert gate.printed_skip(outputs)
    assert not gate.printed_skip(outputs[1:])


def test_torch_deprecations_from_the_notebook_are_shown_and_torch_internal_ones_hidden(tmp_path: Path) -> None:
    """A stand-in torch package whose `old` warns from inside torch, as torch.jit.script does in 2.12. Called from
    the notebook's code (__main__) the warning prints, where Python alone would hide it (`python -c` without the
    kernel's first code prints nothing); torch calling it while importing its own modules prints nothing."""
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text(
        "import warnings\n\n\ndef old():\n    warnings.warn('old is deprecated', DeprecationWarning)\n")
    (tmp_path / "torch" / "own.py").write_text("from torch import old\n\nold()\n")
    calls = "\nimport sys\nimport torch\ntorch.old()\nprint('---', file=sys.stderr)\nimport torch.own\n"

    def stderr(code: str) -> tuple[str, str]:
        done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                              timeout=60, check=True, env={"PYTHONPATH": str(tmp_path), "PATH": ""})
        shown, hidden = done.stderr.split("---\n")
        return shown, hidden

    shown, hidden = stderr(gate.SHOW_TORCH_DEPRECATIONS + calls)
    assert gate.warnings_in(shown) == [("DeprecationWarning", "old is deprecated")], shown
    assert gate.warnings_in(hidden) == [], hidden
    assert stderr(calls) == ("", ""), "without the kernel's first code Python hides both"
