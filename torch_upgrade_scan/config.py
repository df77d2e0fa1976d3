"""Settings from `[tool.torch-upgrade-scan]` in a project's pyproject.toml.

    [tool.torch-upgrade-scan]
    select = ["breaks", "warns"]           # rules or severities to report (default: all)
    ignore = ["torchcomms-p2p"]            # rules or severities to leave out
    exclude = ["third_party", "docs/*"]    # globs, relative to this pyproject.toml's folder
    fail-on = "warns"                      # the least severity that exits 1 (default: advisory)
    max-bytes = 1000000                    # larger files are not parsed (--help: limits)
    target = "2.13"                        # the release upgraded to (default: the newest the scanner knows)
    [tool.torch-upgrade-scan.per-file-ignores]
    "tests/*" = ["torchscript"]            # glob (relative to this folder) -> rules or severities

The file is the first pyproject.toml with that table, walking up from the first path scanned, else from
the current folder; `--config FILE` names one. The command line's options win over the file's keys.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from torch_upgrade_scan.catalog import NEWEST, RELEASES, RULES, SEVERITIES
from torch_upgrade_scan.findings import Finding
from torch_upgrade_scan.reading import MAX_BYTES

if sys.version_info >= (3, 11):  # noqa: UP036 (the package supports 3.10; ruff targets the course's 3.11)
    import tomllib
else:  # Python 3.10: the same parser, from PyPI
    import tomli as tomllib

TABLE = "torch-upgrade-scan"
KEYS = {"select", "ignore", "exclude", "per-file-ignores", "fail-on", "max-bytes", "target"}


def print_warning(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


class ConfigError(Exception):
    """A configuration that cannot be used; the message says what to change."""


@dataclasses.dataclass
class Config:
    select: list[str] = dataclasses.field(default_factory=list)
    ignore: list[str] = dataclasses.field(default_factory=list)
    exclude: list[str] = dataclasses.field(default_factory=list)  # anchored at `root` where they name a folder
    per_file_ignores: dict[str, list[str]] = dataclasses.field(default_factory=dict)
    fail_on: str = "advisory"
    max_bytes: int = MAX_BYTES
    target: str = NEWEST  # the release upgraded to (--target)
    root: Path = dataclasses.field(default_factory=Path.cwd)  # the folder of the pyproject.toml
    source: Path | None = None  # the pyproject.toml read, None for the defaults

    def ignored(self, finding: Finding) -> bool:
        """Whether a per-file-ignores entry covers this finding."""
        path = Path(finding.path)
        keys = {finding.rule, finding.severity or RULES[finding.rule].severity}
        for pattern, names in self.per_file_ignores.items():
            if keys & set(names) and matches(path, self.root, pattern):
                return True
        return False


def matches(path: Path, root: Path, pattern: str) -> bool:
    """A glob matched against the file's name, or its path relative to `root`."""
    absolute = Path(os.path.abspath(path))
    forms = [path.name]
    if absolute.is_relative_to(root):
        forms.append(absolute.relative_to(root).as_posix())
    return any(fnmatch.fnmatch(form, pattern) for form in forms)


def check_names(names: list[str], where: str) -> list[str]:
    """Rule and severity names, lower-cased (they are case-insensitive, as in noqa comments), or a ConfigError
    that lists the valid ones."""
    lowered = [name.lower() for name in names]
    unknown = sorted({n for n, low in zip(names, lowered, strict=True) if low not in RULES and low not in SEVERITIES})
    if unknown:
        valid = ", ".join([*SEVERITIES, *RULES])
        raise ConfigError(f"{where}: unknown rule or severity {', '.join(unknown)} (valid: {valid})")
    return lowered


def check_target(value: Any, where: str) -> str:
    """A release the scanner knows (--target, or the file's target), or a ConfigError that lists them."""
    if isinstance(value, str) and value in RELEASES:
        return value
    hint = "" if isinstance(value, str) else f'; write it as a string, "{value}"'
    raise ConfigError(f"{where}: {value!r} is not a release the scanner knows ({', '.join(RELEASES)}){hint}")


def misspelt(tool: dict[str, Any]) -> str | None:
    """A [tool.*] table that is meant for the scanner but spelt otherwise (`torch_upgrade_scan`, another case)."""
    for name in tool:
        if name != TABLE and name.lower().replace("_", "-").replace(".", "-") == TABLE:
            return name
    return None


def find_pyproject(start: Path, warn: Callable[[str], None] = print_warning) -> Path | None:
    """The first pyproject.toml with a [tool.torch-upgrade-scan] table, from `start` upwards. A table spelt
    otherwise (`[tool.torch_upgrade_scan]`) is no configuration: `warn` is told, once per file."""
    folder = Path(os.path.abspath(start))
    if not os.path.isdir(folder):
        folder = folder.parent
    for candidate in [folder, *folder.parents]:
        path = candidate / "pyproject.toml"
        if not os.path.isfile(path):  # os.path: a folder that cannot be read is no error here
            continue
        tool = read_toml(path).get("tool", {})
        if TABLE in tool:
            return path
        wrong = misspelt(tool)
        if wrong:
            warn(f"{path}: [tool.{wrong}] is not read: the scanner's table is [tool.{TABLE}]")
    return None


def read_toml(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as stream:
            return tomllib.load(stream)
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{path}: cannot read ({error})") from None


def strings(value: Any, key: str, where: Path) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    raise ConfigError(f"{where}: {key} must be a string or a list of strings")


def load(path: Path | None) -> Config:
    """The settings in `path` (a pyproject.toml), or the defaults when None."""
    if path is None:
        return Config()
    table = read_toml(path).get("tool", {}).get(TABLE)
    if not isinstance(table, dict):
        wrong = misspelt(read_toml(path).get("tool", {}))
        hint = f" ([tool.{wrong}] is spelt otherwise)" if wrong else ""
        raise ConfigError(f"{path}: no [tool.{TABLE}] table{hint}")
    unknown = sorted(set(table) - KEYS)
    if unknown:
        raise ConfigError(
            f"{path}: unknown key(s) {', '.join(unknown)} in [tool.{TABLE}] (valid: {', '.join(sorted(KEYS))})"
        )
    where = f"{path} [tool.{TABLE}]"
    config = Config(root=Path(os.path.abspath(path.parent)), source=path)
    config.select = check_names(strings(table.get("select", []), "select", path), f"{where} select")
    config.ignore = check_names(strings(table.get("ignore", []), "ignore", path), f"{where} ignore")
    config.exclude = strings(table.get("exclude", []), "exclude", path)
    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise ConfigError(f"{path}: per-file-ignores must be a table of glob = [rules]")
    config.per_file_ignores = {
        pattern: check_names(
            strings(names, f"per-file-ignores {pattern!r}", path),
            f"{where} per-file-ignores",
        )
        for pattern, names in per_file.items()
    }
    fail_on = table.get("fail-on", "advisory")
    if fail_on not in SEVERITIES:
        raise ConfigError(f"{where}: fail-on must be one of {', '.join(SEVERITIES)}, not {fail_on!r}")
    config.fail_on = fail_on
    max_bytes = table.get("max-bytes", MAX_BYTES)
    if not isinstance(max_bytes, int) or isinstance(max_bytes, bool) or max_bytes < 1:
        raise ConfigError(f"{where}: max-bytes must be a positive integer")
    config.max_bytes = max_bytes
    config.target = check_target(table.get("target", NEWEST), f"{where} target")
    return config


def exclude_patterns(config: Config) -> list[str]:
    """The config's excludes as globs for scan.excluded: a pattern with a `/` is anchored at the config's
    folder (matched against absolute paths); a bare name or glob matches at any depth."""
    return [f"{config.root.as_posix()}/{p.strip('/')}" if "/" in p.strip("/") else p for p in config.exclude]
