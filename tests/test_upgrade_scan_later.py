"""The scanner for an upgrade past 2.12 (issue 51): `--target`, the rules of 2.13 to 2.15 and the corrected 2.12
rules, each proven right and wrong on fixtures; and each release a rule names checked on the wheels of the
version matrix (torch-matrix.txt), so that a release that changes one of these facts fails here."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tools.execute import matrix
from torch_upgrade_scan import cli, scan
from torch_upgrade_scan.catalog import NEWEST, RELEASES, RULES, release_key, rules_up_to
from torch_upgrade_scan.findings import severity_of
from torch_upgrade_scan.rules.distributed import dist_nn_fix
from torch_upgrade_scan.rules.later import KNOBS

pytestmark = pytest.mark.integration  # scans of fixture folders, and a probe in each release's environment

FIXTURES = Path(__file__).parent / "fixtures" / "upgrade_scan"
LATER = FIXTURES / "later"
# The rules of 2.12, before issue 51 added the later releases: `--target 2.12` reports exactly these.
RULES_OF_2_12 = [
    "torchscript", "dist-nn-functional", "port-29500", "green-context-positional", "stream-capturing",
    "metadata-json", "magma", "defer-layout-freezing", "cu128-wheels", "cuda-source-build", "fullgraph-no-frames",
    "fsdp2-fullgraph", "torchcomms-p2p", "torchcomms-one-device",
]


def test_target_2_12_reports_exactly_the_rules_of_2_12(capsys: pytest.CaptureFixture[str]) -> None:
    assert [rule.id for rule in rules_up_to("2.12")] == RULES_OF_2_12
    old = scan.scan_paths([FIXTURES], target="2.12").findings
    new = scan.scan_paths([FIXTURES]).findings
    assert {f.rule for f in old} == set(RULES_OF_2_12)
    assert {(f.path, f.line, f.rule) for f in old} == {(f.path, f.line, f.rule) for f in new if f.since == "2.12"}
    assert cli.main(["--list-rules", "--target", "2.12"]) == 0
    assert [line.split()[0] for line in capsys.readouterr().out.splitlines()[1:]] == RULES_OF_2_12


@pytest.mark.parametrize("target", ["2.13", "2.14", "2.15"])
def test_a_target_keeps_the_changes_up_to_it(target: str) -> None:
    """train_later.py holds changes of 2.13, 2.14 and 2.15 (one knob per release): a target keeps those up to it."""
    found = scan.scan_paths([LATER], target=target).findings
    assert found and {f.since for f in found} == {r for r in RELEASES[1:] if release_key(r) <= release_key(target)}


def test_list_rules_shows_each_rules_release(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--list-rules"]) == 0
    rows = [line.split()[:3] for line in capsys.readouterr().out.splitlines()[1:]]
    assert [row[0] for row in rows] == list(RULES)
    assert all(row[1] == RULES[row[0]].release and row[2] == RULES[row[0]].severity_at(NEWEST) for row in rows)
    assert {row[1] for row in rows} == set(RELEASES)


@pytest.mark.parametrize("value", ["2.16", "2.11", "2.15.0", "latest", ""])
def test_a_bad_target_is_a_one_line_error(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--target", value, str(LATER)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: --target: ") and "2.12, 2.13, 2.14, 2.15" in err


def test_severity_follows_the_target() -> None:
    """fullgraph=True with no compiled frame raises RuntimeError from 2.13; metadata_json is gone in 2.15."""
    compiled = FIXTURES / "dispatch_mode.py"
    assert {severity_of(f) for f in scan.scan_paths([compiled], target="2.12").findings} == {"warns"}
    assert {severity_of(f) for f in scan.scan_paths([compiled], target="2.13").findings} == {"breaks"}
    profiled = FIXTURES / "profiler_use.py"
    metadata = {t: {severity_of(f) for f in scan.scan_paths([profiled], target=t).findings
                    if f.rule == "metadata-json"} for t in ("2.14", "2.15")}
    assert metadata == {"2.14": {"warns"}, "2.15": {"breaks"}}


def test_the_config_files_target_is_read_and_the_command_line_wins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`target` in [tool.torch-upgrade-scan]: train_later.py (a knob of each of 2.13, 2.14 and 2.15) is scanned for
    2.13 alone; `--target` replaces it; `--list-rules` lists the file's target's rules."""
    project = shutil.copytree(LATER, tmp_path / "later")
    (project / "pyproject.toml").write_text('[tool.torch-upgrade-scan]\nexclude = ["py3*"]\ntarget = "2.13"\n')

    def releases(*options: str) -> set[str]:
        code = cli.main([*options, "--json", str(project)])
        found = {finding["release"] for finding in json.loads(capsys.readouterr().out)["findings"]}
        assert code == (1 if found else 0)
        return found

    assert releases() == {"2.13"}
    assert releases("--target", "2.15") == {"2.13", "2.14", "2.15"}
    assert releases("--target", "2.12") == set()
    assert cli.main(["--list-rules", "--config", str(project / "pyproject.toml")]) == 0
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines()[1:]]
    assert listed == [rule.id for rule in rules_up_to("2.13")] != list(RULES)


@pytest.mark.parametrize("value", ['"2.16"', '"2.15.0"', '""', "2.15", '["2.15"]', "true"])
def test_a_bad_target_in_the_config_file_is_a_one_line_error(
    value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The file's target is checked as --target is (a TOML number 2.15 too: 2.10 would read as 2.1)."""
    (tmp_path / "pyproject.toml").write_text(f"[tool.torch-upgrade-scan]\ntarget = {value}\n")
    shutil.copy(LATER / "train_later.py", tmp_path)
    for options in ([], ["--list-rules"], ["--target", "2.15"]):
        assert cli.main([*options, str(tmp_path)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err, err
        assert err.startswith(f"error: {tmp_path / 'pyproject.toml'} [tool.torch-upgrade-scan] target: "), err
        assert "is not a release the scanner knows (2.12, 2.13, 2.14, 2.15)" in err


# A profiler trace exporter: metadata_json warns up to 2.14 and is gone in 2.15 (metadata-json breaks from 2.15).
EXPORTER = """\
import json

from torch.profiler import ProfilerActivity, profile


def export_events(model, batch, path):
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        model(batch)
    rows = [{{"name": event.name, "meta": event.metadata_json}} for event in prof.events()]  # noqa: {names}
    with open(path, "w") as stream:
        json.dump(rows, stream)
"""


@pytest.mark.parametrize(
    ("names", "silenced"),
    [
        ("warns", {"2.13": True, "2.14": True, "2.15": False}),
        ("breaks", {"2.13": False, "2.14": False, "2.15": True}),
        ("metadata-json", {"2.13": True, "2.14": True, "2.15": True}),
        ("advisory, torchscript", {"2.13": False, "2.14": False, "2.15": False}),
    ],
)
def test_a_noqa_severity_is_the_rules_severity_at_the_target(
    names: str, silenced: dict[str, bool], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`# noqa: warns` silences a rule where it warns at the target, not where it breaks (metadata-json at 2.15),
    on the command line and in scan_source; the severity `--list-rules` shows at each target is the one matched."""
    source = EXPORTER.format(names=names)
    (tmp_path / "export.py").write_text(source)
    for target, quiet in silenced.items():
        found = [f.rule for f in scan.scan_source(source, target=target).findings]
        assert found == ([] if quiet else ["metadata-json"]), (target, found)
        assert cli.main(["--target", target, "--format", "concise", str(tmp_path)]) == (0 if quiet else 1)
        assert ("export.py:9:42: metadata-json" in capsys.readouterr().out) is not quiet
        assert cli.main(["--list-rules", "--target", target]) == 0
        row = next(line.split() for line in capsys.readouterr().out.splitlines() if line.startswith("metadata-json"))
        assert quiet is ("metadata-json" in names or row[2] in names), row


def test_the_corrected_texts_say_what_later_releases_did() -> None:
    assert "FutureWarning, shown by default" in RULES["torchscript"].changed
    assert "in 2.12, 2.13 and 2.14" in RULES["metadata-json"].changed and "from 2.14" in RULES["metadata-json"].fix
    assert "raise RuntimeError" in RULES["fullgraph-no-frames"].changed
    for rule in ("torchcomms-p2p", "torchcomms-one-device"):
        assert "still leave opt-in" in RULES[rule].changed and "default planned" not in RULES[rule].changed
    # funcol's all_gather_tensor[_autograd] and reduce_scatter_tensor[_autograd] warn in eager mode from 2.13
    for op, new, old in [("all_gather", "all_gather_single_autograd", "all_gather_tensor_autograd"),
                         ("reduce_scatter", "reduce_scatter_single_autograd", "reduce_scatter_tensor_autograd")]:
        fix = dist_nn_fix(op)
        assert f"funcol.{new}(" in fix and fix.index(new) < fix.index(old), fix


def test_fix_rewrites_give_the_same_results_on_the_installed_torch(tmp_path: Path) -> None:
    """factors.py's linalg and profiler rewrites run on 2.12 and give the same factors (upper= and some= kept)."""
    copy = tmp_path / "factors.py"
    shutil.copy(FIXTURES / "fixable" / "factors.py", copy)
    probe = ("import importlib.util, sys, torch, warnings; warnings.simplefilter('ignore');"
             "spec = importlib.util.spec_from_file_location('f', sys.argv[1]);"
             "m = importlib.util.module_from_spec(spec);"
             "spec.loader.exec_module(m); torch.manual_seed(0); a = torch.randn(4, 4, dtype=torch.float64);"
             "torch.save(m.factors(a), sys.argv[2]); m.profiled(a)")
    python = str(matrix.venv_python(matrix.taught_release()))
    subprocess.run([python, "-c", probe, str(copy), str(tmp_path / "before.pt")], check=True)
    assert cli.main([str(copy), "--fix", "--target", "2.14"]) == 0
    text = copy.read_text()
    assert "torch.cholesky(" not in text and "use_cuda" not in text and "mode='complete'" in text
    subprocess.run([python, "-c", probe, str(copy), str(tmp_path / "after.pt")], check=True)
    check = ("import torch, sys; b, a = torch.load(sys.argv[1]), torch.load(sys.argv[2]);"
             "[torch.testing.assert_close(x, y) for x, y in zip(b, a, strict=True)]")
    subprocess.run([python, "-c", check, str(tmp_path / "before.pt"), str(tmp_path / "after.pt")], check=True)


def test_a_non_literal_flag_is_left_for_a_hand_fix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = shutil.copytree(LATER, tmp_path / "later")
    assert cli.main([str(copy), "--diff", "--select", "profiler-use-cuda,cholesky-qr"]) == 1
    captured = capsys.readouterr()
    assert "-    with torch.autograd.profiler.profile(use_cuda=True)" in captured.out
    assert "profile(use_cuda=...): needs a hand fix: not mechanical here" in captured.err


def test_python_310_needs_an_uncapped_torch_and_python_3_10() -> None:
    """py310's environment.yml caps torch; py311 and setup_py311 need 3.11; split_* cap torch where Python is
    older than 3.11 (an environment marker), and split_setup's URL requirement pins one wheel; heroku311's
    runtime.txt pins 3.11, binder310's 3.10."""
    found = [(f.path, f.line) for f in scan.scan_paths([LATER]).findings if f.rule == "python-310"]
    assert found == [(str(LATER / "binder310" / "requirements.txt"), 3), (str(LATER / "py310" / "pyproject.toml"), 6),
                     (str(LATER / "setup_py310" / "setup.py"), 9)]


@pytest.mark.parametrize(
    ("files", "found"),
    [
        ({"runtime.txt": "python-3.10.14\n", "requirements.txt": "flask\ntorch\n"}, [(2, "torch with Python 3.10.14")]),
        ({"runtime.txt": "python-3.10\n", "requirements.txt": "torch==2.14.1\ntorch; python_version>'3.10'\n"}, []),
        ({"runtime.txt": "python-3.10\n", "requirements.txt": "torch>=2.1  # noqa: python-310\n"}, []),
        ({"runtime.txt": "python-3.10\n", "requirements-dev.txt": "torch>=2.1\n"}, []),
        ({"runtime.txt": "python-3.10\n", "api/requirements.txt": "torch>=2.1\n"}, []),
        ({"runtime.txt": "r-4.1-2021-10-22\n", "requirements.txt": "torch>=2.1\n"}, []),
        ({"requirements.txt": "torch>=2.1\n"}, []),
    ],
)
def test_runtime_txt_pairs_with_the_requirements_txt_of_its_folder(
    files: dict[str, str], found: list, tmp_path: Path
) -> None:
    """Heroku and Binder install a folder's requirements.txt with the Python of its runtime.txt: a torch that
    reaches 2.15 there is a finding where that Python is 3.10 (not a cap, a marker for 3.11+, a noqa, another file
    or folder, an R runtime, or no runtime.txt)."""
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    report = scan.scan_paths([tmp_path], target="2.15")
    assert [(f.line, f.detail.partition(" in ")[0]) for f in report.findings] == found
    assert [Path(f.path).name for f in report.findings] == ["requirements.txt"] * len(found)
    assert scan.scan_paths([tmp_path / "requirements.txt"]).findings == [], "the runtime.txt was not scanned"
    assert scan.scan_paths([tmp_path], target="2.14").findings == [], "a change of 2.15"


# A setup.py whose torch requirement is written in the setup() call, with a cu128 index in a statement of its own
# (cu128-wheels alone would parse only that statement: partial.py), and the same text under another name, which is
# no setup script.
SETUP_PY = """\
from setuptools import setup

INDEX = "https://download.pytorch.org/whl/cu128"
setup(
    name="trainer",
    python_requires=">=3.10",
    install_requires=["torch>=2.12"] + ["numpy"],
    dependency_links=[INDEX],
)
"""


def test_setup_py_is_read_whole_and_by_its_name(tmp_path: Path) -> None:
    (tmp_path / "setup.py").write_text(SETUP_PY)
    (tmp_path / "make_setup.py").write_text(SETUP_PY)
    found = [(Path(f.path).name, f.line, f.rule, f.detail) for f in scan.scan_paths([tmp_path]).findings]
    assert [f for f in found if f[0] == "setup.py"] == [
        ("setup.py", 3, "cu128-wheels", "download.pytorch.org/whl/cu128"),
        ("setup.py", 7, "python-310", "torch>=2.12 with Python 3.10 allowed"),
    ]
    assert [f[2] for f in found if f[0] == "make_setup.py"] == ["cu128-wheels"]
    (tmp_path / "setup.py").write_text(SETUP_PY.replace(">=3.10", ">=3.11"))
    assert [f.rule for f in scan.scan_paths([tmp_path / "setup.py"]).findings] == ["cu128-wheels"]


# ---- the releases, checked on the version matrix's wheels ---------------------------------------------------

PROBE = r"""
import importlib.metadata, inspect, json, warnings
import torch
import torch.distributed.config as dist_config
import torch.distributed._functional_collectives as funcol
from torch.autograd.profiler_util import FunctionEvent
facts = {"release": ".".join(torch.__version__.split("+")[0].split(".")[:2])}
facts["use_torchcomms"] = dist_config.use_torchcomms
torch._dynamo.config.disable = True
try:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.compile(lambda x: x + 1, fullgraph=True)(torch.ones(2))
    facts["fullgraph_no_frames_raises"] = False
except RuntimeError:
    facts["fullgraph_no_frames_raises"] = True
torch._dynamo.config.disable = False
event = FunctionEvent(id=0, name="aten::sin", thread=0, start_us=0, end_us=1)
facts["event_metadata"] = hasattr(event, "metadata")
facts["metadata_json_gone"] = not hasattr(FunctionEvent, "metadata_json")
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.jit.script(torch.nn.Identity())
facts["jit_future_warning"] = any(w.category is FutureWarning for w in caught)
facts["use_cuda_gone"] = all("use_cuda" not in inspect.signature(p.__init__).parameters
                             for p in (torch.profiler.profile, torch.autograd.profiler.profile))
try:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.cholesky(torch.eye(2)), torch.eye(2).qr()
    facts["cholesky_qr_raise"] = False
except RuntimeError:
    facts["cholesky_qr_raise"] = True
facts["named_tensors_gone"] = not hasattr(torch.Tensor, "refine_names") and not hasattr(torch, "align_tensors")
ddp = inspect.signature(torch.nn.parallel.DistributedDataParallel.__init__).parameters
facts["forward_sync_buffers"] = "forward_sync_buffers" in ddp
facts["funcol_all_gather_tensor_warns"] = "FutureWarning" in inspect.getsource(funcol.all_gather_tensor)
knobs = {}
for knob in KNOBS:
    owner, _, name = knob.rpartition(".")
    module = torch
    for part in owner.split(".")[1:]:
        module = getattr(module, part)
    knobs[knob] = hasattr(module, name)
facts["knobs"] = knobs
facts["requires_python"] = importlib.metadata.metadata("torch")["Requires-Python"]
print(json.dumps(facts))
"""


def matrix_pythons() -> list:
    """(release, python) of each release of the version matrix whose environment is here."""
    found = [(r, matrix.VENVS / f"torch-{r}" / "bin" / "python") for r in matrix.releases()[1:]]
    taught = matrix.ROOT / ".venv" / "bin" / "python"
    return [pytest.param(r, p, id=r) for r, p in [(matrix.releases()[0], taught), *found]]


@pytest.mark.parametrize(("release", "python"), matrix_pythons())
def test_each_rules_release_holds_on_the_matrix_wheels(release: str, python: Path) -> None:
    if not python.exists():
        pytest.skip(f"no environment for torch {release} here (`make matrix` makes it)")
    source = f"KNOBS = {KNOBS!r}\n{PROBE}"
    facts = json.loads(subprocess.run([str(python), "-c", source], check=True, capture_output=True,
                                      text=True, timeout=600).stdout.splitlines()[-1])
    at = release_key(facts["release"])

    def since(rule: str) -> bool:
        return at >= release_key(RULES[rule].release)

    assert facts["use_torchcomms"] is False, "torchcomms is still opt-in: the torchcomms texts say so"
    assert facts["fullgraph_no_frames_raises"] is (at >= release_key(RULES["fullgraph-no-frames"].breaks_from))
    assert facts["metadata_json_gone"] is (at >= release_key(RULES["metadata-json"].breaks_from))
    assert facts["event_metadata"] is (at >= (2, 14)), "metadata-json's fix: event.metadata from 2.14"
    assert facts["jit_future_warning"] is (at >= (2, 14)), "torchscript's text: a FutureWarning from 2.14"
    assert facts["funcol_all_gather_tensor_warns"] is (at >= (2, 13)), "dist-nn-functional's fix"
    assert facts["use_cuda_gone"] is since("profiler-use-cuda")
    assert facts["cholesky_qr_raise"] is since("cholesky-qr")
    assert facts["named_tensors_gone"] is since("named-tensors")
    assert facts["forward_sync_buffers"] is since("ddp-broadcast-buffers")
    assert facts["knobs"] == {knob: at < release_key(removed) for knob, removed in KNOBS.items()}
    assert (facts["requires_python"] == ">=3.11") is since("python-310"), facts["requires_python"]
