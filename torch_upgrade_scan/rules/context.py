"""What every family of Python rules reads in one parsed module: the dotted name of each name, attribute and
call, the calls by their function, what single assignments bind, and `emit` to report a finding."""

import ast
import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

from torch_upgrade_scan.parse import Module

# emit(unit, node, rule, detail, fix, severity="", release=""): report a finding at a node (release: where
# it is not the rule's)
Emit = Callable[..., None]


def reexported(name: str, exports: dict) -> str:
    """A dotted name through a module of the project that re-exports torch's: `exports` maps a module's dotted
    name to (the torch module it star-imports, the names it defines itself, {name: torch name it imports})."""
    parts = name.split(".")
    for end in range(len(parts) - 1, 0, -1):
        found = exports.get(".".join(parts[:end]))
        if found is None:
            continue
        star, own, names = found
        first = parts[end]
        if first in names:
            return ".".join([names[first], *parts[end + 1 :]])
        if star and first not in own:
            return ".".join([star, *parts[end:]])
        return name
    return name


@dataclasses.dataclass
class Context:
    module: Module
    path: str
    emit: Emit
    names: dict  # id(node) -> resolved dotted name (of names, attributes and calls)
    called: dict  # id(call.func) -> the call
    bound: dict  # id(assigned value) -> its one target

    reads: list  # (unit, node, dotted name) of each name or attribute read
    # (unit, call, function name): a process group whose backend a function of another file may return
    via_helpers: list = dataclasses.field(default_factory=list)

    @classmethod
    def of(cls, module: Module, path: str, emit: Emit, exports: dict | None = None) -> "Context":
        """Resolve the chains whose first name an import binds (or `torch`): no other resolves to a dotted name.
        `exports`: the scanned project's modules that re-export torch's names (see reexported)."""
        names: dict = {}
        reads: list = []
        imported = module.imported | {"torch"}
        for unit, node, scope in module.chains:
            base = node
            while type(base) is ast.Attribute:
                base = base.value
            if type(base) is not ast.Name or base.id not in imported:
                continue
            name = module.name_of(node, scope, unit)
            if name and exports:
                name = reexported(name, exports)
            if name:
                names[id(node)] = name
                if type(node.ctx) is ast.Load:
                    reads.append((unit, node, name))
        for _, node, _ in module.calls:
            if id(node.func) in names:
                names.setdefault(id(node), names[id(node.func)])
        called = {id(call.func): call for _, call, _ in module.calls}
        bound = {id(a.value): a.targets[0] for _, a, _ in module.assigns if len(a.targets) == 1}
        return cls(module, path, emit, names, called, bound, reads)

    def loads(self) -> Iterator[tuple[int, Any, str]]:
        """(unit, node, dotted name) of each name or attribute read (not assigned: `torch.jit.script = lambda
        f: f` replaces the API, it does not use it)."""
        return iter(self.reads)

    def named(self, table: dict) -> Iterator[tuple[int, Any, str, Any]]:
        """(unit, node, name, table[name]) for each read whose dotted name, or its longest prefix, is in
        `table`."""
        starts = tuple({name.rsplit(".", 1)[0] for name in table})  # a quick test before the lookups
        for unit, node, name in self.loads():
            if not name.startswith(starts):
                continue
            for end in range(name.count(".") + 1, 0, -1):
                prefix = ".".join(name.split(".")[:end])
                if prefix in table:
                    yield unit, node, prefix, table[prefix]
                    break
