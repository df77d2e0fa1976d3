"""Run records follow tools/schemas/run-record.schema.json: checked when written and when read, one line per problem."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CPU_ENVIRONMENT
from tools.course import PLATFORMS, ROOT, CourseError
from tools.records import runs
from tools.records.__main__ import main

NOTEBOOK = {"cells": [{"cell_type": "code", "source": "print(1)", "metadata": {}, "outputs": []}]}


def _record(**changes: Any) -> dict[str, Any]:
    """A record as tools/execute/pytest_plugin.py writes one under `make test`, with `changes` applied."""
    record = runs.new_record("notebooks/a/b.ipynb", NOTEBOOK, failed_cell=None, seconds=3.456, peak_memory_bytes=2**29,
                             skipped_cells=1, warnings=[{"cell": 0, "category": "UserWarning", "message": "x"}],
                             env=dict(CPU_ENVIRONMENT), command="make test")
    record |= {"exercises": [{"label": "b-one", "ok": True, "wrong_answers": 3, "seconds": 1.2, "problems": []}],
               "wall_seconds": 5.0, "cpu_seconds": 4.0, "steps": "_build/runs/make-test-steps.json"}
    return record | changes


def test_the_records_the_code_writes_follow_the_schema(tmp_path: Path) -> None:
    assert runs.problems(_record()) == []
    assert runs.problems(_record(verdict_runs=29, flaky=False)) == [], "mark_flaky's fields"
    failed = _record(outcome="fail", failed_cell={"index": 0, "error": "AssertionError: no"})
    assert runs.problems(failed) == []
    path = runs.write_record(tmp_path, _record())
    assert path.name == "a__b.json" and runs.read_record(path) == _record() | {"date": runs.read_record(path)["date"]}


@pytest.mark.integration  # imports torch to describe it
def test_this_machines_environment_follows_the_schema() -> None:
    assert runs.problems(_record(environment=runs.environment())) == []


def test_a_record_missing_a_field_names_it(tmp_path: Path) -> None:
    record = _record()
    del record["seconds"]
    assert runs.problems(record) == ["seconds: missing (The execution time of all its cells.)"]
    del record["environment"]["torch"]
    assert "environment.torch: missing" in runs.problems(record)


def test_a_field_of_the_wrong_type_is_named() -> None:
    assert runs.problems(_record(seconds="fast")) == ["seconds: 'fast' is not of type 'number'"]
    assert runs.problems(_record(warnings=[{"cell": "3", "category": "UserWarning", "message": "x"}])) == [
        "warnings[0].cell: '3' is not of type 'integer'"]


def test_an_unknown_outcome_or_platform_is_named() -> None:
    assert runs.problems(_record(outcome="ok")) == ["outcome: 'ok' is not one of ['pass', 'fail']"]
    wrong = _record()
    wrong["environment"] |= {"platform": "tpu", "torch_build": "CUDA 13.0"}
    assert runs.problems(wrong) == ["environment.platform: 'tpu' is not one of ['cuda', 'rocm', 'mps', 'xpu', 'cpu']"]


def test_the_schema_knows_the_course_platforms() -> None:
    assert tuple(runs.RECORD_SCHEMA["properties"]["environment"]["properties"]["platform"]["enum"]) == PLATFORMS


def test_the_rules_across_fields() -> None:
    assert runs.problems(_record(outcome="fail")) == ["a failed run names its failed_cell (index and error)"]
    assert runs.problems(_record(failed_cell={"index": 1, "error": "x"})) == ["a passing run has failed_cell null"]
    on_cuda = _record()
    on_cuda["environment"]["platform"] = "cuda"
    assert runs.problems(on_cuda) == ["a CPU build of torch cannot have run on an accelerator"]
    assert runs.problems(_record(colour="red")) == [
        "record: Additional properties are not allowed ('colour' was unexpected)"]


def test_a_malformed_record_is_never_written(tmp_path: Path) -> None:
    with pytest.raises(CourseError, match=r"a__b\.json: refusing to write a malformed run record: outcome: 'ok'"):
        runs.write_record(tmp_path, _record(outcome="ok"))
    assert not list(tmp_path.iterdir())


def test_a_malformed_record_read_is_one_line_naming_the_file_and_the_field(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "a__b.json"
    bad.write_text(json.dumps(_record(outcome="ok")), encoding="utf-8")
    with pytest.raises(CourseError, match=r"a__b\.json: outcome: 'ok' is not one of \['pass', 'fail'\]$"):
        runs.load_records(tmp_path)
    assert main(["check", str(tmp_path)]) == 2
    printed = capsys.readouterr().err
    assert printed.count("\n") == 1 and str(bad) in printed and "outcome" in printed
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(CourseError, match=r"a__b\.json: not valid JSON"):
        runs.load_records(tmp_path)


def test_every_committed_record_follows_the_schema() -> None:
    folders = [runs.RUNS, ROOT / "results" / "recorded"]
    loaded = [record for folder in folders for record in runs.load_records(folder)]  # raises, naming the file
    assert len(loaded) == sum(len(list(folder.rglob("*.json"))) for folder in folders if folder.is_dir()) > 0


def test_the_source_hash_follows_what_a_notebook_says_and_runs_not_its_outputs() -> None:
    """A record is stale when its hash differs from the notebook's: a changed source or cell type changes it, and a
    run's outputs and execution counts do not."""
    code = {"cell_type": "code", "source": "print(1)", "metadata": {}, "outputs": [], "execution_count": None}
    same_text_as_markdown = {"cell_type": "markdown", "source": "print(1)", "metadata": {}}
    executed = code | {"outputs": [{"output_type": "stream", "name": "stdout", "text": "1\n"}], "execution_count": 1}
    base = runs.source_hash({"cells": [code]})
    assert runs.source_hash({"cells": [executed]}) == base
    assert runs.source_hash({"cells": [code | {"source": "print(2)"}]}) != base
    assert runs.source_hash({"cells": [same_text_as_markdown]}) != base
