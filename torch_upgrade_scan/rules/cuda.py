"""Rules for CUDA builds and CUDA-only APIs: cu128-wheels, cuda-source-build, green-context-positional,
stream-capturing and magma. The wheel and source-build patterns also match lines of text files."""

import ast
import re

from torch_upgrade_scan.rules.context import Context

NAMES = {  # dotted name -> rule
    "torch.cuda.is_current_stream_capturing": "stream-capturing",
    "torch.cuda.graphs.is_current_stream_capturing": "stream-capturing",
    "torch._C._LinalgBackend.Magma": "magma",
}
CU128 = re.compile(  # release wheels only: the nightly matrix is not checked here
    r"download\.pytorch\.org/whl/(?:test/)?cu128\b"
    r"|\btorch(?:vision|audio)?\s*[=<>~!]=\s*[\w.]+\+cu128\b"
    # uv: UV_TORCH_BACKEND=cu128, --torch-backend cu128, torch-backend = "cu128"
    r"|\b(?:UV_TORCH_BACKEND|torch-backend)[\"']?\s*[=:\s]\s*[\"']?cu128\b"
)
OLD_CUDA = re.compile(
    r"(?:nvidia/cuda:|cuda[-_]?(?:toolkit[-_])?|CUDA_VERSION(?:_\w+)?[\"']?[=:\s]+[\"']?)"
    r"(?:11[.-]\d|12[.-][0-5])\b",
    re.IGNORECASE,
)
SOURCE_BUILD = re.compile(r"github\.com/pytorch/pytorch(?:\.git)?\b")


def find(found: Context) -> None:
    module, emit = found.module, found.emit
    for unit, node, name, rule in found.named(NAMES):
        emit(unit, node, rule, "@" * (id(node) in module.decorators) + name, "")
    for unit, node, _ in module.calls:
        name = found.names.get(id(node.func)) or ""
        if name.startswith("torch.cuda") and name.endswith("GreenContext.create") and node.args:
            emit(unit, node, "green-context-positional", f"{len(node.args)} positional argument(s)", "")
        if name == "torch.backends.cuda.preferred_linalg_library":
            backend = node.args[0] if node.args else {k.arg: k.value for k in node.keywords}.get("backend")
            value = backend.value if isinstance(backend, ast.Constant) else None
            if isinstance(value, str) and value.lower() == "magma":
                emit(unit, node, "magma", f"preferred_linalg_library({value!r})", "")
    for unit, node, _ in module.constants:
        match = CU128.search(node.value) if isinstance(node.value, str) and "cu128" in node.value else None
        if match:
            emit(unit, node, "cu128-wheels", match.group(0), "")
