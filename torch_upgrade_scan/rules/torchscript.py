"""Rule torchscript: each torch.jit API, with the torch.export or torch.compile fix for that API."""

from pathlib import Path

from torch_upgrade_scan.rules.context import Context

# Fixes for one API, where the rule's own fix would not fit.
JIT_FIXES = {
    "script": "export the model with torch.export.export(model, example_args) "
    "(save: torch.export.save), or speed it up with torch.compile(model)",
    "script@": "remove the decorator (the function runs eagerly); decorate with "
    "@torch.compile if you need the speed",
    "trace": "torch.export.export(model, example_args) captures the same graph "
    "(declare dynamic_shapes where sizes vary)",
    "save": "torch.export.save(exported_program, 'model.pt2')",
    "load": "torch.export.load('model.pt2') for programs you export; a "
    "third-party TorchScript file still loads in 2.12 (with the warning): ask "
    "its publisher for an exported program",
    "freeze": "torch.compile(model.eval()) with torch._inductor.config.freezing "
    "= True folds weights as freeze did",
    "fork": "let torch.compile schedule the work, or use torch.futures / "
    "concurrent.futures in eager mode",
    "interface": "describe the interface with typing.Protocol or an abstract "
    "base class",
    "set_fusion_strategy": "remove it: torch.compile fuses kernels itself "
    "(control it with mode= and options=)",
    "script_method": "make it a plain method and compile the module",
    "test": "a test that checks scriptability: keep it while you ship "
    "TorchScript, and test torch.export.export(model, args) beside it",
}
JIT_APIS = {
    "script": "script",
    "trace": "trace",
    "trace_module": "trace",
    "script_method": "script_method",
    "save": "save",
    "load": "load",
    "freeze": "freeze",
    "optimize_for_inference": "freeze",
    "fork": "fork",
    "wait": "fork",
    "interface": "interface",
    "set_fusion_strategy": "set_fusion_strategy",
}
NAMES = {f"torch.jit.{name}": key for name, key in JIT_APIS.items()}


def in_test(path: str) -> bool:
    name = Path(path).name
    return name.startswith("test_") or name.endswith("_test.py")


def jit_fix(key: str, decorator: bool, test: bool) -> str:
    """The fix for one torch.jit API; `test`: whether the file is a test."""
    if test and key in ("script", "trace"):
        return JIT_FIXES["test"]
    return JIT_FIXES["script@" if decorator and key == "script" else key]


def find(found: Context) -> None:
    test = in_test(found.path)
    for unit, node, name, key in found.named(NAMES):
        decorator = id(node) in found.module.decorators
        fix = jit_fix(key, decorator, test)
        found.emit(unit, node, "torchscript", "@" * decorator + name, fix)
