"""A release's environment is reused only when it was made from this checkout (tools/execute/matrix.py)."""

from __future__ import annotations

from pathlib import Path

from tools.course import ROOT
from tools.execute import matrix


def test_an_environment_made_from_another_clone_is_installed_again(tmp_path: Path) -> None:
    """requirements.txt installs the scanner from the checkout in editable mode: an environment made from a clone
    that has since been deleted cannot import it (the matrix's upgrade-scanner run failed so on 6 December 2026)."""
    here = matrix._fingerprint("2.13.0")
    assert here == matrix._fingerprint("2.13.0", ROOT), "the same checkout reuses its environment"
    assert here != matrix._fingerprint("2.13.0", tmp_path / "another-clone")
    assert here != matrix._fingerprint("2.15.0")
