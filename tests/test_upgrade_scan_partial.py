"""The partial parse (torch_upgrade_scan/partial.py): a file whose triggers are all local rules is parsed as its
imports and the statements that hold a trigger; its findings are those of the whole module."""

from pathlib import Path

import pytest

from torch_upgrade_scan import partial, prefilter, reading, scan

FIXTURES = Path(__file__).parent / "fixtures"


def findings_of(paths: list[Path]) -> list:
    report = scan.scan_paths(paths, jobs=1)
    return [(f.path, f.line, f.column, f.rule, f.detail, f.severity) for f in report.findings] + report.errors


def test_every_fixture_finds_the_same_cut_and_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each fixture folder's findings and errors with the cut and with every module parsed whole."""
    folders = [FIXTURES / "upgrade_scan", FIXTURES / "scan_corpus"]
    cut = findings_of(folders)
    whole = reading.python_reading
    monkeypatch.setattr(reading, "python_reading", lambda data: whole(data) and "whole")
    assert cut == findings_of(folders)
    assert len(cut) > 150


def test_lines_stay_and_only_what_the_rules_read_is_kept() -> None:
    code = (
        "import torch\n"
        "from torch.jit import script as make\n"
        '"""A docstring with an example:\n'
        "torch.jit.script(model)\n"
        '"""\n'
        "def unrelated():\n"
        "    return 1\n"
        "\n"
        "@make\n"
        "def kept(x):\n"
        "    return x\n"
    )
    kept = partial.kept_statements(code)
    lines = kept.split("\n")
    assert len(lines) == len(code.split("\n")), "every line stays where it was"
    assert lines[:2] == ["import torch", "from torch.jit import script as make"]
    # the docstring holds a trigger: kept whole, its unindented line no statement of its own (split there, its
    # opening line would be blank and its text read as code)
    assert lines[2:5] == code.split("\n")[2:5]
    assert lines[5:7] == ["", ""], "unrelated code is blank"
    assert lines[8:10] == ["@make", "def kept(x):"], "a name a triggering import binds keeps its statement"


def test_a_large_class_keeps_only_the_members_with_a_trigger(tmp_path: Path) -> None:
    filler = "".join(f"    def method_{n}(self):\n        return {n}\n\n" for n in range(300))
    code = (
        "import torch\n\n\nclass Big:\n"
        + filler
        + "    def scripted(self):\n        return torch.jit.script(self)\n"
    )
    kept = partial.kept_statements(code)
    assert "method_0" in kept and "method_1(" not in kept and "torch.jit.script(self)" in kept
    assert len(kept.split("\n")) == len(code.split("\n"))
    path = tmp_path / "big.py"
    path.write_text(code)
    assert [(f.line, f.rule) for f in scan.scan_paths([path]).findings] == [(code.count("\n"), "torchscript")]


def test_a_rebinding_or_a_file_wide_rule_keeps_the_module(tmp_path: Path) -> None:
    """A definition that rebinds an imported name is kept (the later use is then not torch.jit's); a file with a
    port or a compile is parsed whole."""
    path = tmp_path / "rebinds.py"
    path.write_text("from torch.jit import script\n\ndef script(f):\n    return f\n\n@script\ndef g():\n    pass\n")
    assert [f.line for f in scan.scan_paths([path]).findings] == []
    assert prefilter.python_reading(b"torch.jit.script(m)") == "local"
    assert prefilter.python_reading(b"torch.jit.script(m)\nport = 29500\n") == "whole"
    compiled = b"import torch.distributed\ntorch.distributed.nn.functional.all_reduce(x)\ntorch.compile(fullgraph=True)"
    assert prefilter.python_reading(compiled) == "whole"
    assert prefilter.python_reading(compiled.replace(b"fullgraph", b"mode")) == "local"
    assert prefilter.python_reading(b"import torch") is None


def test_a_cut_that_does_not_parse_falls_back_to_the_whole_module(tmp_path: Path) -> None:
    """An unindented line inside brackets reads as a statement's start: the cut does not parse, the whole does."""
    path = tmp_path / "brackets.py"
    path.write_text("import torch\nitems = [\ntorch.jit.script,\n]\n")
    assert "cannot" not in str(scan.scan_paths([path]).errors)
    assert [(f.line, f.detail) for f in scan.scan_paths([path]).findings] == [(3, "torch.jit.script")]


def test_a_name_from_an_import_with_odd_spacing_is_kept(tmp_path: Path) -> None:
    """`from torch.distributed import  nn as D` (two spaces) binds D: the function that uses it is kept."""
    path = tmp_path / "spaced.py"
    path.write_text(
        "import torch.distributed\nfrom torch.distributed import  nn as D\n\n\ndef f(x):\n"
        "    return D.functional.all_reduce(x)\n\n\ntorch.distributed.nn.functional.all_reduce(1)\n"
    )
    assert [f.line for f in scan.scan_paths([path]).findings] == [6, 9]


def test_a_large_function_keeps_its_signature_imports_and_statements_with_a_trigger(tmp_path: Path) -> None:
    filler = "".join(f"    value_{n} = compute({n})\n" for n in range(150))
    code = (
        "import torch\n\n\ndef big(\n    model,\n    example,\n):\n    # a comment before the body\n"
        "    first = 1\n    import torch.distributed as dist\n"
        + filler
        + "    scripted = torch.jit.script(model)\n    dist.nn.functional.all_reduce(example)\n    return scripted\n"
    )
    kept = partial.kept_statements(code)
    assert len(kept.split("\n")) == len(code.split("\n"))
    assert "first = 1" in kept and "import torch.distributed as dist" in kept, "the first statement, an import"
    assert "value_0" not in kept and "return scripted" not in kept
    assert "torch.jit.script(model)" in kept and "dist.nn.functional.all_reduce" in kept
    path = tmp_path / "big.py"
    path.write_text(code)
    found = [(f.line, f.rule) for f in scan.scan_paths([path]).findings]
    assert found == [(161, "torchscript"), (162, "dist-nn-functional")]
