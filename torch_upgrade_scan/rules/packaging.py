"""Rule python-310: a project that allows Python 3.10 (requires-python in pyproject.toml, python_requires in
setup.cfg or in setup.py's setup() call, `- python=3.10` in environment.yml) and requires torch without a cap below
2.15. torch 2.15.0 says `Requires-Python: >=3.11` (2.12.0 to 2.14.1: >=3.10, read in each wheel's METADATA), so pip
on Python 3.10 picks the newest 2.14.x for such a requirement and says nothing. setup.py is read, not run: the
literal strings of its setup() call's python_requires, install_requires and extras_require (or of the module-level
names they pass). A requirements file names no Python version of the project: an environment marker
(`; python_version < "3.11"`) makes one line conditional, it allows or forbids no interpreter; but a runtime.txt
(Heroku's Python buildpack, Binder's repo2docker) pins the Python that installs the requirements.txt of its
folder, and the two are paired (scan.finish). Not read: .python-version, a developer's interpreter (pyenv) or
one that uv picks within the requires-python that pyproject.toml already declares."""

import ast
import re
from pathlib import Path

from torch_upgrade_scan.rules.context import Context

FILES = {"pyproject.toml", "setup.cfg", "environment.yml"}
PYTHON_SPEC = re.compile(
    r"""^\s*(?:requires-python\s*=\s*["']|python_requires\s*=\s*|-\s*python\s*(?=[=<>~!]))([^"'#\n]+)"""
)
# torch (or conda's pytorch) as a requirement: quoted in a TOML list, or a YAML / setup.cfg list item
TORCH = re.compile(r"""(?:^\s*-\s*|["']|^\s+)(?:py)?torch(?![\w.-])\s*([^"';#\]\n]*)""")
CLAUSE = re.compile(r"(~=|==|!=|<=|>=|<|>|=)\s*([\d.*]+)")
# a Python clause of an environment marker (`; python_version >= "3.11"`)
MARKER_PYTHON = re.compile(r"""python_(?:full_)?version\s*(~=|==|!=|<=|>=|<|>)\s*["']([\d.*]+)["']""")


def version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".") if part.isdigit())


def admits(spec: str, wanted: tuple[int, ...]) -> bool:
    """Whether a version specifier (`>=3.10,<3.13`, `==2.14.*`, conda's `=3.10`) admits the release `wanted`
    (its first parts: 3.10 for any 3.10.x)."""
    for op, text in CLAUSE.findall(spec):
        given = version(text)
        have = wanted[: len(given)] if op in ("==", "=", "!=", "~=") or text.endswith("*") else wanted
        ok = {
            "==": have == given,
            "=": have == given,
            "!=": have != given,
            "~=": wanted[: len(given) - 1] == given[:-1] and wanted >= given[: len(wanted)],
            ">=": have >= given[: len(have)] if len(have) < len(given) else have >= given,
            ">": have > given,
            "<=": have <= given,
            "<": have < given,
        }[op]
        if not ok:
            return False
    return True


def reaches_310(spec: str, rest: str) -> bool:
    """Whether a torch requirement (its version specifier, then what follows it) admits 2.15 on Python 3.10: an
    environment marker that leaves 3.10 out (`torch>=2.1; python_version >= "3.11"`, beside a capped line for
    3.10) does not; a marker joined with `or` is not judged."""
    if not admits(spec, (2, 15)):
        return False
    marker = rest.lstrip()
    if not marker.startswith(";") or " or " in marker:
        return True
    return all(admits(op + version, (3, 10)) for op, version in MARKER_PYTHON.findall(marker))


def findings(name: str, lines: list) -> list[tuple[int, int, str]]:
    """(line, column, detail) for each torch requirement that admits 2.15 in a file that allows Python 3.10."""
    if name not in FILES:
        return []
    python = [match.group(1) for _, text in lines if (match := PYTHON_SPEC.match(text))]
    if not python or not any(admits(spec, (3, 10)) for spec in python):
        return []
    found = []
    for number, text in lines:
        match = TORCH.search(text)
        if match and reaches_310(match.group(1), text[match.end() :]):
            found.append((number, match.start() + 1, f"torch{match.group(1).strip()} with Python 3.10 allowed"))
    return found


# ---- setup.py ------------------------------------------------------------------------------------------------

SETUP = {"setuptools.setup", "distutils.core.setup"}
# a torch requirement (a setup.py string, a requirements.txt line): its version specifier, then a marker or comment
REQUIREMENT = re.compile(r"\s*torch(?![\w.-])\s*(?:\[[^\]]*\]\s*)?([^;@#]*)")


def torch_requirement(text: str) -> tuple[str, str] | None:
    """A torch requirement's version specifier and what follows it (a marker, a comment), or None: another
    package, or a URL requirement (`torch @ https://...`), which pins one wheel."""
    match = REQUIREMENT.match(text)
    if match is None or text[match.end() :].startswith("@"):
        return None
    return match.group(1), text[match.end() :]


def find(found: Context) -> None:
    """setup.py's setup() call: its python_requires admits 3.10 and a torch requirement of install_requires or
    extras_require admits 2.15."""
    if Path(found.path).name != "setup.py":
        return
    constants = {
        target.id: assign.value
        for _, assign, scope in found.module.assigns
        if scope is found.module.root
        for target in assign.targets
        if isinstance(target, ast.Name)
    }
    for unit, call, _ in found.module.calls:
        if found.names.get(id(call.func)) not in SETUP:
            continue
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        floor = [node.value for node in strings(keywords.get("python_requires"), constants)]
        if not floor or not admits(floor[0], (3, 10)):
            continue
        for key in ("install_requires", "extras_require"):
            for node in strings(keywords.get(key), constants):
                requirement = torch_requirement(node.value)
                if requirement and reaches_310(*requirement):
                    detail = f"torch{requirement[0].strip()} with Python 3.10 allowed"
                    found.emit(unit, node, "python-310", detail, "")


def strings(node: ast.expr | None, constants: dict, follow: bool = True) -> list[ast.Constant]:
    """The string literals of a value as written: a string, a list, tuple or set of them, a dict's values (extras),
    `a + b`; a name assigned one of these at module level, once (`install_requires=REQUIRED`)."""
    if isinstance(node, ast.Constant):
        return [node] if isinstance(node.value, str) else []
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return [s for element in node.elts for s in strings(element, constants, follow)]
    if isinstance(node, ast.Dict):
        return [s for value in node.values for s in strings(value, constants, follow)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return strings(node.left, constants, follow) + strings(node.right, constants, follow)
    if isinstance(node, ast.Name) and follow and node.id in constants:
        return strings(constants[node.id], constants, False)
    return []


# ---- runtime.txt and the requirements.txt beside it ----------------------------------------------------------

RUNTIME, PAIRED = "runtime.txt", "requirements.txt"
# runtime.txt's Python: python-3.10.14 (Heroku), python-3.10 (Binder)
RUNTIME_PYTHON = re.compile(r"\s*python-(\d+\.\d+(?:\.\d+)?)\s*$")


def runtime_python(name: str, lines: list) -> str:
    """The Python 3.10 release a runtime.txt pins (`3.10`, `3.10.14`), or "" (another release, another file)."""
    if name != RUNTIME:
        return ""
    pins = [match.group(1) for _, text in lines if (match := RUNTIME_PYTHON.fullmatch(text))]
    return pins[0] if pins and version(pins[0])[:2] == (3, 10) else ""


def runtime_requirements(name: str, lines: list) -> list[tuple[int, int, str]]:
    """(line, column, detail) for each torch line of a requirements.txt that admits 2.15 on Python 3.10: a finding
    where a runtime.txt of its folder pins 3.10."""
    if name != PAIRED:
        return []
    found = []
    for number, text in lines:
        requirement = torch_requirement(text)
        if requirement and reaches_310(*requirement):
            found.append((number, len(text) - len(text.lstrip()) + 1, f"torch{requirement[0].strip()}"))
    return found
