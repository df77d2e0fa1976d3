"""The rules: each one's id, severity, what changed in 2.12 and the fix when no API-specific one applies; and
the changes in the 2.12 release summaries that have no rule, with the reason."""

import dataclasses

BREAKS, WARNS, ADVISORY = "breaks", "warns", "advisory"
SEVERITIES = (BREAKS, WARNS, ADVISORY)


@dataclasses.dataclass(frozen=True)
class Rule:
    id: str
    severity: str  # breaks: fails or behaves differently; warns: a warning now
    changed: str  # what changed, with the release
    fix: str  # the fix when no API-specific one applies


# The torch.distributed.nn.functional collectives that 2.12 deprecates (each calls
# _deprecated, a FutureWarning, in torch/distributed/nn/functional.py).
DEPRECATED_DIST_NN = (
    "all_reduce",
    "broadcast",
    "all_gather",
    "reduce_scatter",
    "all_to_all_single",
)

RULES = {
    rule.id: rule
    for rule in [
        Rule(
            "torchscript",
            WARNS,
            "TorchScript is deprecated: torch.jit APIs warn in 2.12 "
            "(DeprecationWarning since 2.10) and get no new features",
            "move to torch.export (export and save) or torch.compile (speed)",
        ),
        Rule(
            "dist-nn-functional",
            BREAKS,
            "the torch.distributed.nn collectives raise RuntimeError under "
            "torch.compile(fullgraph=True) in 2.12 (with fullgraph=False, Dynamo "
            "breaks the graph and runs them eagerly); "
            + ", ".join(DEPRECATED_DIST_NN[:-1])
            + f" and {DEPRECATED_DIST_NN[-1]} are deprecated: they warn "
            "(FutureWarning) when they run eagerly, after a graph break too",
            "use torch.distributed._functional_collectives, which compiles",
        ),
        Rule(
            "port-29500",
            BREAKS,
            "single-node torchrun (static rendezvous) without --master-port (or "
            "PET_MASTER_PORT), --standalone or --rdzv-endpoint no longer listens on "
            "29500 in 2.12: it picks a free port (read in torch/distributed/run.py; "
            "torchrun never reads MASTER_PORT)",
            "pass --master-port to torchrun; in the workers read MASTER_PORT",
        ),
        Rule(
            "green-context-positional",
            BREAKS,
            "GreenContext.create takes keyword arguments only in 2.12 "
            "(2.11: create(num_sms, device_id=0))",
            "call GreenContext.create(num_sms=..., device_id=...)",
        ),
        Rule(
            "stream-capturing",
            ADVISORY,
            "torch.cuda.is_current_stream_capturing is CUDA-only; 2.12 adds the "
            "device-agnostic torch.Stream.is_capturing()",
            "use torch.accelerator.current_stream().is_capturing()",
        ),
        Rule(
            "metadata-json",
            WARNS,
            "FunctionEvent.metadata_json warns (FutureWarning) in 2.12 and 2.13; "
            "the 2.15.0 wheel has no such attribute",
            "read event.event_metadata (2.12, 2.13); from 2.15 read event.metadata",
        ),
        Rule(
            "magma",
            ADVISORY,
            "MAGMA is deprecated; in 2.12 eigh, lu_solve, cholesky_solve, "
            "cholesky_inverse and triangular_solve (pytorch#174109: its CUDA kernel "
            "calls cuBLAS only) no longer use it, so preferring it changes nothing "
            "there",
            "drop the preference (PyTorch picks per op), or ask for 'cusolver'",
        ),
        Rule(
            "defer-layout-freezing",
            BREAKS,
            "the release notes' max_autotune_defer_layout_freezing knob is not in "
            "the 2.12.0 wheel: setting it raises and its environment variable is "
            "ignored",
            "remove it; the 2.12.0 wheel still defers layout freezing",
        ),
        Rule(
            "cu128-wheels",
            BREAKS,
            "2.12 publishes no CUDA 12.8 wheels: a cu128 index or +cu128 pin "
            "finds no torch 2.12",
            "use .../whl/cu130 (default; driver 580.65.06+ on Linux, 580.88+ on "
            "Windows) or .../whl/cu126 (older drivers; Maxwell to Hopper: it has no "
            "Blackwell kernels). A Blackwell GPU on a driver older than 580 has no "
            "2.12 wheel: update the driver, or stay on torch 2.11's cu128 wheel",
        ),
        Rule(
            "cuda-source-build",
            ADVISORY,
            "building PyTorch 2.12 from source needs CUDA 12.6 or newer and a "
            "C++20 compiler (CMake enforces C++20)",
            "build with CUDA 12.6+ (for example FROM nvidia/cuda:12.6...) and a "
            "C++20 compiler (GCC 10+)",
        ),
        Rule(
            "fullgraph-no-frames",
            WARNS,
            "torch.compile(fullgraph=True) that runs no compiled frame warns in "
            "2.12 (measured here on 2.12.0: called under a TorchDispatchMode, after "
            "torch._dynamo.config.disable = True or set_stance('force_eager'); "
            "torch.compiler.disable on the function or its caller does not warn); "
            "the release notes say 2.13 raises",
            "call the compiled function outside the mode, or drop fullgraph=True "
            "where Dynamo is off",
        ),
        Rule(
            "fsdp2-fullgraph",
            BREAKS,
            "torch.compile(m, fullgraph=True) of a module m that fully_shard "
            "shards, before or after the compile, raises in 2.12: FSDP2's hooks "
            "run inside the graph (torch._dynamo.exc.Unsupported; measured here on "
            "2.12.0, CPU, gloo, one rank)",
            "shard what torch.compile returns: m = torch.compile(m, fullgraph=True) "
            "and then fully_shard(m), per block and then the root (measured here to "
            "run and compile one graph on 2.12.0, CPU, gloo, one rank); or pass "
            "fullgraph=False. Not m.compile(fullgraph=True): before or after "
            "fully_shard(m) it runs but compiles no graph (measured here, the same "
            "machine)",
        ),
        Rule(
            "torchcomms-p2p",
            ADVISORY,
            "with torchcomms, the default planned for 2.13, point-to-point ops "
            "on one group are no longer guaranteed to run concurrently",
            "post them together with dist.batch_isend_irecv([dist.P2POp(...)]) "
            "or give each direction its own group",
        ),
        Rule(
            "torchcomms-one-device",
            ADVISORY,
            "with torchcomms, the default planned for 2.13, a process group has "
            "one backend device (and is initialised eagerly)",
            "create one group per device type, e.g. dist.new_group(backend='gloo') "
            "for CPU tensors",
        ),
    ]
}

# Changes in the 2.12 release summaries that have no rule, and why.
NO_RULE = {
    "eager process-group init (torchcomms, 2.13)": "every init_process_group is "
    "affected alike; code that relies on lazy init cannot be told apart by "
    "reading it: run your tests with TORCH_DISTRIBUTED_USE_TORCHCOMMS=1",
    "torchcomms replaces the c10d backends (after 2.13)": "announced without an "
    "API to check against; the 2.12 wheel has no deprecation to detect",
    "MPS tensors in unified memory": "performance only: no API changed",
    "FMA in Inductor's addcdiv lowering": "numerics of compiled optimizers move "
    "closer to eager; no code has to change",
    "new features (accelerator.Graph, fused Adagrad, MX export, torch.cond in "
    "CUDA graphs, ROCm, XPU and Metal-4 additions)": "additions: nothing breaks",
}
