"""Python code parsed once: its scopes, each name resolved to the dotted name it stands for where it is used,
the nodes the rules look at, and helpers that read a node as written (an argument, a module, a string)."""

import ast
import bisect
from typing import Any


class Scope:
    """A module, class or function body (`name`: the class's or function's)."""

    def __init__(self, kind: str, parent: "Scope | None", name: str = "") -> None:
        self.kind, self.parent, self.name = kind, parent, name
        self.bindings: dict = {}  # name -> [(position, dotted name or None)]
        self.positions: dict = {}  # name -> sorted positions, made on first lookup
        self.globals: set = set()
        # (the root scope only) module-level string constants: name -> [(position, text)]; functions that
        # return a string: name -> [text]. Kept as text, so that a module parsed in pieces shares them.
        self.strings: dict = {}
        self.helpers: dict = {}
        self.stars: list = []  # the modules of `from X import *` at module level

    def bind(self, name: str, position: tuple, target: str | None) -> None:
        self.bindings.setdefault(name, []).append((position, target))
        self.positions.pop(name, None)

    def lookup(self, name: str, position: tuple) -> tuple[bool, str | None]:
        """(bound here, what to): the last binding at or before `position`, else
        the last one of all (a function may run after a later import)."""
        bound = self.bindings.get(name)
        if not bound:
            return False, None
        positions = self.positions.get(name)
        if positions is None:
            bound.sort(key=lambda binding: binding[0])
            positions = self.positions[name] = [binding[0] for binding in bound]
        index = bisect.bisect_right(positions, position)
        return True, bound[index - 1 if index else -1][1]


def resolve(name: str, scope: Scope, position: tuple) -> str | None:
    """The dotted name that `name` stands for where it is used, or None when it
    is a local variable, a parameter or unknown. Class scopes are invisible to
    the functions inside them, as in Python."""
    current, first = scope, True
    while current is not None:
        if name in current.globals:
            while current.parent is not None:
                current = current.parent
        if current.kind != "class" or first:
            bound, target = current.lookup(name, position)
            if bound:
                return target
        current, first = current.parent, False
    return "torch" if name == "torch" else None


def dotted(node: ast.AST) -> tuple[str, list[str]] | None:
    """`a.b.c` as ("a", ["b", "c"]), or None for other expressions."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return (node.id, parts[::-1]) if isinstance(node, ast.Name) else None


CHILD_FIELDS: dict = {}  # node type -> the fields that can hold child nodes


def child_fields(kind: type[ast.AST]) -> tuple:
    """A node type's fields, less `ctx` (Load, Store: never of interest)."""
    fields = CHILD_FIELDS[kind] = tuple(f for f in kind._fields if f != "ctx")
    return fields


class Module:
    """One Python module (or a notebook's cells, which share a kernel) parsed
    once, with its scopes and the nodes the rules look at."""

    def __init__(self, root: Scope | None = None, imported: set | None = None) -> None:
        # a module parsed in pieces shares one root scope and imported set (see pieces.py)
        self.root = root or Scope("module", None)
        self.chains: list = []  # (unit, node, scope) for names and attributes
        self.calls: list = []
        self.constants: list = []
        self.stores: list = []  # (unit, attribute node, scope) assigned to
        self.bases: list = []  # (unit, class node, scope)
        self.decorators: set = set()  # ids of decorator expressions
        self.decorated: dict = {}  # id(decorator) -> the name of what it decorates
        self.assigns: list = []  # (unit, Assign node, scope)
        self.returns: list = []  # (Return node with a value, function scope)
        self.withs: list = []  # (unit, With node, scope)
        self.branches: list = []  # (unit, If node): tests that pick a launcher
        self.loops: list = []  # (unit, For or While node, scope)
        self.subscripts: list = []  # Subscript nodes read (os.environ["LOCAL_RANK"])
        self.sequences: list = []  # list and tuple displays (a command's words)
        self.docstrings: set = set()  # ids of constants that are whole statements
        self.functions: set = set()  # the names of the functions defined (methods included)
        # local names an import binds to a dotted name
        self.imported: set = set() if imported is None else imported

    def add(self, unit: int, tree: ast.AST) -> None:
        """Collect bindings and interesting nodes, iteratively (no recursion)."""
        # Nodes are dispatched on their exact type (faster than isinstance chains),
        # typed Any because the checker cannot narrow `type(node) is ast.Name`.
        stack: list[tuple[Any, Scope, Any, bool]] = [(tree, self.root, None, False)]
        while stack:
            node, scope, at, inner = stack.pop()
            kind = type(node)
            child_scope, child_at = scope, at
            if kind is ast.Name:
                if type(node.ctx) is ast.Load:
                    if not inner:
                        self.chains.append((unit, node, scope))
                else:
                    target = self.root if node.id in scope.globals else scope
                    position = (unit, node.lineno, node.col_offset)
                    target.bind(node.id, at or position, None)
                continue
            if kind is ast.Attribute:
                if not inner:
                    self.chains.append((unit, node, scope))
                if type(node.ctx) is not ast.Load:
                    self.stores.append((unit, node, scope))
                stack.append((node.value, scope, at, True))
                continue
            if kind is ast.Constant:
                if isinstance(node.value, str | int):
                    self.constants.append((unit, node, scope))
                continue
            if kind is ast.Call:
                self.calls.append((unit, node, scope))
            elif kind is ast.Subscript and type(node.ctx) is ast.Load:
                self.subscripts.append(node)
            elif kind in (ast.With, ast.AsyncWith):
                self.withs.append((unit, node, scope))
            elif kind is ast.If:
                self.branches.append((unit, node))
            elif kind in (ast.For, ast.AsyncFor, ast.While):
                self.loops.append((unit, node, scope))
            elif kind in (ast.List, ast.Tuple):
                self.sequences.append(node)
            elif kind is ast.Expr and isinstance(node.value, ast.Constant):
                self.docstrings.add(id(node.value))
            elif kind in (ast.Import, ast.ImportFrom):
                position = (unit, node.lineno, node.col_offset)
                for alias in node.names:
                    if kind is ast.Import:
                        local = alias.asname or alias.name.split(".")[0]
                        target = alias.name if alias.asname else local
                    elif node.level == 0 and node.module and alias.name != "*":
                        local = alias.asname or alias.name
                        target = f"{node.module}.{alias.name}"
                    else:
                        local, target = alias.asname or alias.name, None
                        if alias.name == "*" and node.level == 0 and node.module and scope is self.root:
                            self.root.stars.append(node.module)
                    scope.bind(local, position, target)
                    if target:
                        self.imported.add(local)
                continue
            elif kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
                scope.bind(node.name, (unit, node.lineno, node.col_offset), None)
                for decorator in node.decorator_list:
                    self.decorators.add(id(decorator))
                    self.decorated[id(decorator)] = node.name
                    stack.append((decorator, scope, None, False))
                if kind is ast.ClassDef:
                    self.bases.append((unit, node, scope))
                    for base in node.bases + [k.value for k in node.keywords]:
                        stack.append((base, scope, None, False))
                    body_scope = Scope("class", scope, node.name)
                else:
                    self.functions.add(node.name)
                    args = node.args
                    every = args.posonlyargs + args.args + args.kwonlyargs
                    every += [a for a in (args.vararg, args.kwarg) if a is not None]
                    outer = args.defaults + args.kw_defaults + [node.returns]
                    for child in outer + [a.annotation for a in every]:
                        if child is not None:
                            stack.append((child, scope, None, False))
                    body_scope = Scope("function", scope, node.name)
                    for arg in every:
                        body_scope.bind(arg.arg, (unit, 0, 0), None)
                for statement in node.body:
                    stack.append((statement, body_scope, None, False))
                continue
            elif kind is ast.Lambda:
                child_scope = Scope("function", scope)
                for arg in node.args.args + node.args.kwonlyargs:
                    child_scope.bind(arg.arg, (unit, 0, 0), None)
                stack.append((node.body, child_scope, None, False))
                continue
            elif kind in (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp):
                child_scope = Scope("function", scope)
                self.loops.append((unit, node, child_scope))
            elif kind in (ast.Global, ast.Nonlocal):
                scope.globals.update(node.names if kind is ast.Global else ())
                continue
            elif kind in (ast.Assign, ast.AugAssign, ast.AnnAssign):
                if kind is ast.Assign:
                    self.assigns.append((unit, node, scope))
                    if scope is self.root:
                        self.module_constant(unit, node)
                end = (unit, node.end_lineno or 0, node.end_col_offset or 0)
                targets = node.targets if kind is ast.Assign else [node.target]
                for target in targets:
                    stack.append((target, scope, end, False))
                if node.value is not None:
                    stack.append((node.value, scope, None, False))
                continue
            elif kind is ast.Return and node.value is not None:
                self.returns.append((node, scope))
            elif kind is ast.ExceptHandler and node.name:
                scope.bind(node.name, (unit, node.lineno, node.col_offset), None)
            elif kind in (ast.MatchAs, ast.MatchStar) and node.name:
                scope.bind(node.name, (unit, node.lineno, node.col_offset), None)
            for field in CHILD_FIELDS.get(kind) or child_fields(kind):
                value = getattr(node, field)
                if type(value) is list:
                    stack.extend(
                        (child, child_scope, child_at, False)
                        for child in value
                        if isinstance(child, ast.AST)
                    )
                elif isinstance(value, ast.AST):
                    stack.append((value, child_scope, child_at, False))

    def module_constant(self, unit: int, assign: Any) -> None:
        """Record `NAME = "text"` (or an f-string) at module level."""
        text = literal_text(assign.value)
        target = assign.targets[0]
        if text is not None and len(assign.targets) == 1 and type(target) is ast.Name:
            position = (unit, assign.lineno, assign.col_offset)
            self.root.strings.setdefault(target.id, []).append((position, text))

    def name_of(self, node: Any, scope: Scope, unit: int) -> str | None:
        chain = dotted(node)
        if chain is None:
            return None
        base = resolve(chain[0], scope, (unit, node.lineno, node.col_offset))
        return ".".join([base, *chain[1]]) if base else None


def position_of(unit: int, node: Any) -> tuple:
    return (unit, node.lineno, node.col_offset)


def module_text(node: Any) -> str | None:
    """`model`, `self.model` or `model.layers[0]` as written; None for others."""
    if isinstance(node, ast.Name | ast.Attribute | ast.Subscript):
        return ast.unparse(node)
    return None


def argument(call: Any, index: int, keyword: str) -> str | None:
    """A call's argument as written (positional `index` or `keyword=`), or None."""
    if call is None:
        return None
    if len(call.args) > index and not any(
        isinstance(a, ast.Starred) for a in call.args[: index + 1]
    ):
        return ast.unparse(call.args[index])
    found = [k.value for k in call.keywords if k.arg == keyword]
    return ast.unparse(found[0]) if found else None


def literal_text(node: Any) -> str | None:
    """A string literal's text, or an f-string's with its placeholders as {…}; None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(str(part.value) if isinstance(part, ast.Constant) else "{…}" for part in node.values)
    return None
