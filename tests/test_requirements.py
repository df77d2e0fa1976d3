"""torch is a floor in requirements.txt; Binder pins the taught release (CPU wheels) with the lessons' libraries."""

from __future__ import annotations

from tools.course import ROOT, taught_release


def _requirements(path: str) -> list[str]:
    lines = (ROOT / path).read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def _name(line: str) -> str:
    for mark in "<>=!~ ;[":
        line = line.split(mark)[0]
    return line.lower()


def test_torch_is_a_floor() -> None:
    torch_lines = [line for line in _requirements("requirements.txt") if line.startswith("torch")]
    assert torch_lines == ["torch>=2.12"]


def test_binder_pins_the_taught_release_with_cpu_wheels() -> None:
    binder = _requirements("binder/requirements.txt")
    assert [line for line in binder if line.startswith("--")] == ["--extra-index-url https://download.pytorch.org/whl/cpu"]
    assert [line for line in binder if _name(line) == "torch"] == [f"torch=={taught_release()}"]


def test_binder_has_the_lessons_libraries_and_no_build_tools() -> None:
    """What a lesson imports (the floors of requirements.txt) and JupyterLab; none of the book's build tools."""
    binder = {_name(line): line for line in _requirements("binder/requirements.txt") if not line.startswith("--")}
    course = {_name(line): line for line in _requirements("requirements.txt")}
    for library in ("numpy", "matplotlib", "pandas", "ipywidgets", "ipykernel", "threadpoolctl"):
        assert binder.get(library) == course[library], f"binder/requirements.txt: {library} differs"
    assert "jupyterlab" in binder
    build_tools = {"jupyter-book", "sphinx-exercise", "sphinx-togglebutton", "babel", "jieba", "psutil", "jsonschema"}
    assert not build_tools & set(binder), f"binder/requirements.txt installs build tools: {build_tools & set(binder)}"
