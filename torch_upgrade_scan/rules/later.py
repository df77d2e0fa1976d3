"""The rules of releases after 2.12, in Python code: named-tensors and ddp-broadcast-buffers (2.13),
removed-compiler-knobs (2.13 to 2.15, each knob with its release), cholesky-qr and profiler-use-cuda (2.14). The
rewrites that --fix makes for the last two are here too, so that the finding's fix and the rewrite are one text.
Not found: `Tensor.rename(...)` other than `rename(None)` (pathlib and pandas objects have a rename), and
`.names` (many objects have one)."""

import ast
from collections.abc import Callable

from torch_upgrade_scan.parse import module_text
from torch_upgrade_scan.rules.context import Context

# Tensor methods of named tensors that 2.13 removed (run on 2.13.0, 2.14.1 and 2.15.0); rename(None) too.
NAMED_METHODS = {"refine_names", "align_to", "align_as", "has_names"}
DDP = {"torch.nn.parallel.DistributedDataParallel", "torch.nn.parallel.distributed.DistributedDataParallel"}
# knob -> the release that removed it (setting or patching it raises AttributeError there; run on each wheel)
KNOBS = {
    "torch._dynamo.config.skip_fsdp_hooks": "2.13",
    "torch._inductor.config.force_same_precision": "2.13",
    "torch._inductor.config.partitioned_scatter_memory_budget": "2.14",
    "torch._inductor.config.cuda.nvgemm_max_profiling_configs": "2.14",
    "torch._inductor.config.autoheuristic_use.mixed_mm": "2.15",
    "torch._inductor.config.autoheuristic_collect.mixed_mm": "2.15",
}
# config.patch(knob=...) and options={"knob": ...}: the knobs whose last name no other setting has
KNOB_WORDS = {
    knob.rpartition(".")[2]: release for knob, release in KNOBS.items() if not knob.endswith("mixed_mm")
}
PATCHES = {"torch._dynamo.config.patch", "torch._inductor.config.patch"}
LINALG = {"torch.cholesky", "torch.qr"}
# Libraries whose objects have a cholesky() or qr() method of their own (gpytorch's kernel(X).cholesky() is a
# LinearOperator's): in a module that uses one, a method call is no sign of a tensor's.
OWN_FACTORS = ("gpytorch", "linear_operator", "sympy")
KINETO = {"torch.profiler.profile", "torch.profiler.profiler.profile"}
AUTOGRAD = {"torch.autograd.profiler.profile"}


def find(found: Context) -> None:
    module, names, emit = found.module, found.names, found.emit
    if not imports(found, ("torch",)):
        return
    for unit, node, name in found.loads():
        if name == "torch.align_tensors":
            emit(unit, node, "named-tensors", name, "")
        elif name in KNOBS:
            emit(unit, node, "removed-compiler-knobs", name, "", release=KNOBS[name])
    for unit, node, _ in module.stores:
        name = names.get(id(node)) or ""
        if name in KNOBS:
            emit(unit, node, "removed-compiler-knobs", f"{name} = ...", "", release=KNOBS[name])
    for unit, node, _ in module.constants:
        if isinstance(node.value, str) and node.value in KNOB_WORDS:
            emit(unit, node, "removed-compiler-knobs", repr(node.value), "", release=KNOB_WORDS[node.value])
    for unit, node, _ in module.calls:
        name = names.get(id(node.func)) or ""
        keywords = {k.arg: k for k in node.keywords if k.arg}
        if name in DDP and "broadcast_buffers" in keywords:
            value = ast.unparse(keywords["broadcast_buffers"].value)
            emit(unit, keywords["broadcast_buffers"], "ddp-broadcast-buffers", f"broadcast_buffers={value}", "")
        elif name in PATCHES:
            for word in keywords.keys() & KNOB_WORDS.keys():
                emit(unit, keywords[word], "removed-compiler-knobs", f"patch({word}=...)", "",
                     release=KNOB_WORDS[word])
        elif name in KINETO | AUTOGRAD and "use_cuda" in keywords:
            emit(unit, node, "profiler-use-cuda", f"{name}(use_cuda=...)", profiler_fix(node, name in KINETO))
        elif name.startswith("torch.") and name.count(".") == 1 and "names" in keywords:
            emit(unit, keywords["names"], "named-tensors", f"{name}(names=...)", "")
        elif name in LINALG:
            emit(unit, node, "cholesky-qr", call_text(node), linalg_fix(node, False))
        elif not name and isinstance(node.func, ast.Attribute) and id(node.func) not in names:
            method(found, unit, node)


def method(found: Context, unit: int, node: ast.Call) -> None:
    """A method call on something that is no module (a tensor, as far as reading tells)."""
    attr = node.func.attr if isinstance(node.func, ast.Attribute) else ""
    if attr in NAMED_METHODS or (attr == "rename" and is_none_only(node)):
        found.emit(unit, node.func, "named-tensors", f".{attr}(...)", "")
    elif attr in ("cholesky", "qr") and not imports(found, OWN_FACTORS):
        found.emit(unit, node, "cholesky-qr", f"Tensor.{attr}: {call_text(node)}", linalg_fix(node, True))


def imports(found: Context, packages: tuple[str, ...]) -> bool:
    """Whether the module imports one of these packages (or from them) at module level: the imports are what a
    module read in part keeps (partial.py)."""
    bound = found.module.root.bindings.values()
    return any(target and target.split(".")[0] in packages for binding in bound for _, target in binding)


def call_text(node: ast.Call) -> str:
    """A call as written, shortened: two calls on one line are two findings."""
    text = ast.unparse(node)
    return text if len(text) <= 60 else text[:57] + "..."


def is_none_only(node: ast.Call) -> bool:
    return not node.keywords and len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and \
        node.args[0].value is None


# ---- the rewrites --fix makes ---------------------------------------------------------------------------


def constant(node: ast.expr | None, default: bool) -> bool | None:
    """A True or False written as such (None: something else, which needs judgement)."""
    if node is None:
        return default
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, bool) else None


def linalg_call(
    node: ast.Call, is_method: bool, torch_name: str | None = "torch", text: Callable[[ast.expr], str] = ast.unparse
) -> str | None:
    """The torch.linalg call that replaces torch.cholesky(A, upper) / torch.qr(A, some) or A.cholesky(upper) /
    A.qr(some), with the same result (upper=True: the upper factor; some=False: mode='complete'); None where it
    is not mechanical (a flag that is not a True or False literal, out=, *args, no name for torch).
    `torch_name`: the name this file binds to torch (a method call, or a function imported by name, needs it);
    `text`: the source of the matrix argument (as written, for --fix)."""
    func = node.func
    op = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    args = list(node.args)
    prefix = torch_name
    if is_method:
        args.insert(0, func.value)  # type: ignore[attr-defined]
    elif isinstance(func, ast.Attribute):
        prefix = module_text(func.value)  # torch.cholesky, th.cholesky: the module it is read from
    flag_name = "upper" if op == "cholesky" else "some"
    keywords = {k.arg: k.value for k in node.keywords}
    if prefix is None or op not in ("cholesky", "qr") or len(args) not in (1, 2) or set(keywords) - {flag_name}:
        return None
    if any(isinstance(a, ast.Starred) for a in args) or (len(args) == 2 and flag_name in keywords):
        return None
    flag = constant(args[1] if len(args) == 2 else keywords.get(flag_name), op == "qr")
    if flag is None:
        return None
    matrix = text(args[0])
    if op == "cholesky":
        return f"{prefix}.linalg.cholesky({matrix}{', upper=True' if flag else ''})"
    return f"{prefix}.linalg.qr({matrix}{'' if flag else COMPLETE})"


COMPLETE = ", mode='complete'"


def linalg_fix(node: ast.Call, is_method: bool) -> str:
    call = linalg_call(node, is_method)
    return f"write {call}" if call else ""


def profiler_keyword(node: ast.Call, kineto: bool, activity: str | None) -> str | None:
    """What replaces use_cuda=<True or False> in a profiler call ("" : the keyword goes); None where it is not
    mechanical (not a literal, or no name for ProfilerActivity). `activity`: how this file can name
    torch.profiler.ProfilerActivity."""
    keywords = {k.arg: k.value for k in node.keywords}
    use_cuda = constant(keywords.get("use_cuda"), False)
    if use_cuda is None:
        return None
    if not kineto:
        return 'use_device="cuda"' if use_cuda and "use_device" not in keywords else ""
    if "activities" in keywords:
        return ""  # 2.12 passed `activities` on and left use_cuda out (torch/profiler/profiler.py)
    if activity is None:
        return None
    devices = [f"{activity}.CPU"] + [f"{activity}.CUDA"] * use_cuda
    return f"activities=[{', '.join(devices)}]"


def profiler_fix(node: ast.Call, kineto: bool) -> str:
    keyword = profiler_keyword(node, kineto, "ProfilerActivity")
    if keyword is None:
        return ""
    return f"write {keyword} instead of use_cuda=..." if keyword else "remove use_cuda=..."
