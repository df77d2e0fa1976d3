"""Reference results are well formed, carry their provenance, and malformed ones are refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from tools.course import RESULTS
from tools.records.results import problems, provenance, result_name, write_result

pytestmark = pytest.mark.integration  # kernels, book builds, mypy or torch (make integration)

RESULT_FILES = sorted(RESULTS.glob("*.json"))


def test_a_cpu_reference_result_is_recorded() -> None:
    assert any(json.loads(p.read_text())["provenance"]["platform"] == "cpu" for p in RESULT_FILES)


@pytest.mark.parametrize("path", RESULT_FILES, ids=lambda p: p.name)
def test_result_file_is_well_formed(path: Path) -> None:
    data = json.loads(path.read_text())
    assert problems(data) == []
    assert path.name == result_name(data["benchmark"], data["provenance"])


def test_write_then_read_round_trips(tmp_path: Path) -> None:
    prov = provenance(torch.device("cpu"), "pytest")
    rows = [{"impl": "torch batched", "n": 8, "batch": 16, "seconds": 1e-4}]
    path = write_result(tmp_path, "demo", rows, prov)
    data = json.loads(path.read_text())
    assert data["rows"] == rows and data["provenance"]["platform"] == "cpu"
    assert problems(data) == []


@pytest.mark.parametrize(("broken", "expected"), [
    ({"schema": 1, "benchmark": "x", "provenance": {}, "rows": []}, "provenance lacks 'device'"),
    ({"schema": 1, "benchmark": "x", "rows": [{"impl": "a", "seconds": 1}]}, "provenance is missing"),
    ([], "JSON object"),
])
def test_malformed_results_are_named(broken: object, expected: str) -> None:
    assert any(expected in p for p in problems(broken))


def test_a_row_without_time_is_refused(tmp_path: Path) -> None:
    prov = provenance(torch.device("cpu"), "pytest")
    with pytest.raises(ValueError, match="positive number of 'seconds'"):
        write_result(tmp_path, "demo", [{"impl": "a", "seconds": 0}], prov)
