"""The upgrade scanner's precision on real code it was never tuned on (issue 24).

tests/fixtures/scan_corpus/<project>/ holds real files (or excerpts, each with its source and licence line) from
permissively licensed projects, and verdicts.yml judges every finding right or wrong with a reason. The scanner must
report exactly the listed findings, so a rule change that adds or drops one fails here until its verdict is written.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tools.course import ROOT
from torch_upgrade_scan import Report, scan_paths

pytestmark = pytest.mark.integration  # kernels, book builds, mypy or torch (make integration)

CORPUS = ROOT / "tests" / "fixtures" / "scan_corpus"
VERDICTS = yaml.safe_load((CORPUS / "verdicts.yml").read_text(encoding="utf-8"))
# Projects the scanner was tuned or measured on before issue 24's corpus: not "code it has never seen".
EARLIER = {"pytorch/torchtitan", "pytorch/torchtune", "Lightning-AI/pytorch-lightning", "huggingface/accelerate",
           "facebookresearch/detectron2", "pytorch/ao", "huggingface/diffusers", "pytorch/rl",
           "mlfoundations/open_clip"}
PERMISSIVE = {"MIT", "BSD-3-Clause", "Apache-2.0"}
Key = tuple[str, int | None, int, str]


def key(entry: dict) -> Key:
    return entry["file"], entry.get("cell"), entry["line"], entry["rule"]


def precision(entries: list[dict]) -> float:
    return sum(e["verdict"] == "right" for e in entries) / len(entries)


@pytest.fixture(scope="module")
def report() -> Report:
    """One scan of the project folders (verdicts.yml is no project file)."""
    return scan_paths(sorted(p for p in CORPUS.iterdir() if p.is_dir()))


def test_the_scanner_reports_exactly_the_judged_findings(report: Report) -> None:
    assert report.errors == [] and report.internal == []
    got = {(Path(f.path).relative_to(CORPUS).as_posix(), f.cell, f.line, f.rule) for f in report.findings}
    judged = {key(e) for e in VERDICTS["findings"]}
    assert got - judged == set(), "a finding with no verdict: judge it in verdicts.yml"
    assert judged - got == set(), "a judged finding is no longer reported: move it to `silenced` with its reason"
    assert len(judged) == len(VERDICTS["findings"]), "each finding is judged once"


def test_the_silenced_false_alarms_stay_silent(report: Report) -> None:
    got = {(Path(f.path).relative_to(CORPUS).as_posix(), f.cell, f.line, f.rule) for f in report.findings}
    silenced = {key(e) for e in VERDICTS["silenced"]}
    assert silenced and not silenced & got
    assert all(e["verdict"] == "wrong" for e in VERDICTS["silenced"])


def test_every_verdict_is_right_or_wrong_with_a_reason() -> None:
    for entry in VERDICTS["findings"] + VERDICTS["silenced"]:
        assert entry["verdict"] in ("right", "wrong"), entry
        assert len(entry["reason"]) > 30, entry
        assert (CORPUS / entry["file"]).is_file(), entry


def test_precision_outside_torchscript_is_at_least_95_percent() -> None:
    outside = [e for e in VERDICTS["findings"] if e["rule"] != "torchscript"]
    assert len(outside) >= 20, "too few findings outside TorchScript to measure precision"
    assert precision(outside) >= 0.95, f"precision outside TorchScript {precision(outside):.0%}"


def test_the_projects_are_new_permissive_and_pinned() -> None:
    projects = VERDICTS["projects"]
    with_files = {Path(e["file"]).parts[0] for e in VERDICTS["findings"] + VERDICTS["silenced"]}
    assert len(projects) >= 3 and with_files <= set(projects)
    assert {p["repo"] for p in projects.values()}.isdisjoint(EARLIER)
    assert all(p["license"] in PERMISSIVE and len(p["commit"]) == 40 for p in projects.values())


def test_every_corpus_file_names_its_source() -> None:
    """Each file carries `Source: <repo> <path> @ <commit>, <licence>` near its top (a notebook, in its first cell)."""
    files = [p for p in CORPUS.rglob("*") if p.is_file() and p.name != "verdicts.yml"]
    assert files
    for path in files:
        project = VERDICTS["projects"][path.relative_to(CORPUS).parts[0]]
        head = path.read_text(encoding="utf-8")[:3000]
        assert f"Source: {project['repo']} " in head and project["commit"][:12] in head, path
