"""Rule defer-layout-freezing: the release notes' Inductor knob max_autotune_defer_layout_freezing and its
environment variable, in Python code (its text-file settings are matched by KNOB_SETTING)."""

import ast
import re

from torch_upgrade_scan.catalog import WARNS
from torch_upgrade_scan.rules.context import Context

KNOB = "max_autotune_defer_layout_freezing"
KNOB_ENV = "TORCHINDUCTOR_MAX_AUTOTUNE_DEFER_LAYOUT_FREEZING"
KNOB_SETTING = re.compile(rf"(?:^|[\s\"'-]){KNOB_ENV}[\"']?\s*[:=]")


def find(found: Context) -> None:
    """The knob as a keyword argument, an attribute read or set, or a string; its environment variable's name."""
    module, emit = found.module, found.emit
    for unit, node, _ in module.calls:
        for keyword in node.keywords:
            if keyword.arg == KNOB:
                emit(unit, keyword.value, "defer-layout-freezing", f"{KNOB}=...", "")
    for unit, node, _ in module.chains:
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            if node.attr == KNOB:
                emit(unit, node, "defer-layout-freezing", f".{KNOB}", "")
    for unit, node, _ in module.stores:
        if node.attr == KNOB:
            emit(unit, node, "defer-layout-freezing", f".{KNOB} = ...", "")
    for unit, node, _ in module.constants:
        if node.value == KNOB:
            emit(unit, node, "defer-layout-freezing", repr(node.value), "")
        elif node.value == KNOB_ENV:
            emit(unit, node, "defer-layout-freezing", KNOB_ENV, "", WARNS)
