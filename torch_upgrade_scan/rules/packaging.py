"""Rule python-310: a project that allows Python 3.10 (requires-python in pyproject.toml, python_requires in
setup.cfg, `- python=3.10` in environment.yml) and requires torch without a cap below 2.15. torch 2.15.0 says
`Requires-Python: >=3.11` (2.12.0 to 2.14.1: >=3.10, read in each wheel's METADATA), so pip on Python 3.10 picks
the newest 2.14.x for such a requirement and says nothing. Other files name no Python version (a requirements.txt)
or compute it (setup.py): not read."""

import re

FILES = {"pyproject.toml", "setup.cfg", "environment.yml"}
PYTHON_SPEC = re.compile(
    r"""^\s*(?:requires-python\s*=\s*["']|python_requires\s*=\s*|-\s*python\s*(?=[=<>~!]))([^"'#\n]+)"""
)
# torch (or conda's pytorch) as a requirement: quoted in a TOML list, or a YAML / setup.cfg list item
TORCH = re.compile(r"""(?:^\s*-\s*|["']|^\s+)(?:py)?torch(?![\w.-])\s*([^"';#\]\n]*)""")
CLAUSE = re.compile(r"(~=|==|!=|<=|>=|<|>|=)\s*([\d.*]+)")


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
        if match and admits(match.group(1), (2, 15)):
            found.append((number, match.start() + 1, f"torch{match.group(1).strip()} with Python 3.10 allowed"))
    return found
