"""The rules: each one's id, severity, what changed (in 2.12 or a later release) and the fix when no API-specific
one applies, and the release that made the change; and the changes in the 2.12 release summaries that have no rule,
with the reason."""

import dataclasses

BREAKS, WARNS, ADVISORY = "breaks", "warns", "advisory"
SEVERITIES = (BREAKS, WARNS, ADVISORY)
# The releases the catalogue knows, oldest first: --target picks the rules of the releases up to one of them.
RELEASES = ("2.12", "2.13", "2.14", "2.15")


@dataclasses.dataclass(frozen=True)
class Rule:
    id: str
    severity: str  # breaks: fails or behaves differently; warns: a warning now
    changed: str  # what changed, with the release
    fix: str  # the fix when no API-specific one applies
    release: str = RELEASES[0]  # the release that made the change
    breaks_from: str = ""  # a later release from which a `warns` rule's code fails (its severity there: breaks)

    def severity_at(self, target: str) -> str:
        """The rule's severity for an upgrade to the `target` release."""
        return BREAKS if self.breaks_from and release_key(target) >= release_key(self.breaks_from) else self.severity


def release_key(release: str) -> tuple[int, ...]:
    return tuple(int(part) for part in release.split("."))


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
            "TorchScript is deprecated: torch.jit APIs warn in 2.12 and 2.13 "
            "(DeprecationWarning since 2.10, hidden by default outside __main__) and get "
            "no new features; from 2.14 the warning is a FutureWarning, shown by default "
            "(read in torch/jit/_script.py of the 2.14.1 and 2.15.0 wheels)",
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
            "use torch.distributed._functional_collectives, which compiles (from 2.13 "
            "its all_gather_tensor, reduce_scatter_tensor, their _autograd forms and "
            "*_coalesced warn, FutureWarning, when they run eagerly: use the *_single "
            "names there)",
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
            "FunctionEvent.metadata_json warns (FutureWarning) in 2.12, 2.13 and 2.14; "
            "the 2.15.0 wheel has no such attribute (read in "
            "torch/autograd/profiler_util.py of each wheel)",
            "read event.event_metadata (2.12, 2.13); from 2.14 read event.metadata (a "
            "dict; event_metadata is deprecated in 2.15)",
            breaks_from="2.15",
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
            "2.13.0, 2.14.1 and 2.15.0 raise RuntimeError instead (run here with "
            "torch._dynamo.config.disable = True)",
            "call the compiled function outside the mode, or drop fullgraph=True "
            "where Dynamo is off",
            breaks_from="2.13",
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
            "with torchcomms, which the 2.12 release blog announced as the default for "
            "2.13 but which 2.13.0, 2.14.1 and 2.15.0 still leave opt-in "
            "(use_torchcomms defaults to False in torch/distributed/config.py), point-to-point ops "
            "on one group are no longer guaranteed to run concurrently",
            "post them together with dist.batch_isend_irecv([dist.P2POp(...)]) "
            "or give each direction its own group",
        ),
        Rule(
            "torchcomms-one-device",
            ADVISORY,
            "with torchcomms, which the 2.12 release blog announced as the default for "
            "2.13 but which 2.13.0, 2.14.1 and 2.15.0 still leave opt-in "
            "(use_torchcomms defaults to False in torch/distributed/config.py), a process group has "
            "one backend device (and is initialised eagerly)",
            "create one group per device type, e.g. dist.new_group(backend='gloo') "
            "for CPU tensors",
        ),
        # Changes of later releases, each read in its wheel and run on a CPU (2.14.1 stands for 2.14).
        Rule(
            "named-tensors",
            BREAKS,
            "named tensors are removed in 2.13: Tensor.names, refine_names, rename, "
            "align_to, align_as, has_names and torch.align_tensors raise AttributeError, "
            "names= raises TypeError (run on 2.13.0, 2.14.1 and 2.15.0)",
            "drop the names and index dimensions by position (permute, unsqueeze, "
            "flatten); keep their names in comments or a dict",
            release="2.13",
        ),
        Rule(
            "ddp-broadcast-buffers",
            WARNS,
            "DistributedDataParallel(broadcast_buffers=...) warns (FutureWarning) from "
            "2.13, which adds forward_sync_buffers; forward_sync_buffers=False still "
            "syncs buffers at init, where broadcast_buffers=False did not (read in "
            "torch/nn/parallel/distributed.py of 2.13.0, 2.14.1 and 2.15.0, run on one "
            "gloo rank)",
            "from 2.13, forward_sync_buffers=<the same value> (2.12 has no such "
            "argument); keep broadcast_buffers=False where buffers must stay rank-local "
            "at init",
            release="2.13",
        ),
        Rule(
            "removed-compiler-knobs",
            BREAKS,
            "compiler config knobs removed: setting or patching one raises "
            "AttributeError (torch._dynamo.config.skip_fsdp_hooks and "
            "torch._inductor.config.force_same_precision in 2.13; "
            "partitioned_scatter_memory_budget and cuda.nvgemm_max_profiling_configs "
            "in 2.14; autoheuristic_use.mixed_mm and autoheuristic_collect.mixed_mm in "
            "2.15; run on 2.13.0, 2.14.1 and 2.15.0)",
            "remove the setting: the release that removed the knob has nothing that reads it",
            release="2.13",
        ),
        Rule(
            "cholesky-qr",
            BREAKS,
            "torch.cholesky, torch.qr, Tensor.cholesky and Tensor.qr raise RuntimeError "
            "from 2.14 (\"deprecated since version 1.9 and is now removed\"; run on "
            "2.14.1 and 2.15.0); 2.12 and 2.13 warn",
            "torch.linalg.cholesky(A, upper=...) and torch.linalg.qr(A, mode='reduced') "
            "(some=True) or mode='complete' (some=False), both in 2.12",
            release="2.14",
        ),
        Rule(
            "profiler-use-cuda",
            BREAKS,
            "torch.profiler.profile and torch.autograd.profiler.profile take no use_cuda= "
            "from 2.14 (TypeError; run on 2.14.1 and 2.15.0); 2.12 and 2.13 warn "
            "(FutureWarning), and 2.12's torch.profiler.profile ignores it: it passes its "
            "activities= on unchanged (read in torch/profiler/profiler.py)",
            "torch.profiler.profile: activities=[ProfilerActivity.CPU, "
            "ProfilerActivity.CUDA] for use_cuda=True, [ProfilerActivity.CPU] for False; "
            "torch.autograd.profiler.profile: use_device='cuda' for True, nothing for "
            "False; both run on 2.12",
            release="2.14",
        ),
        Rule(
            "python-310",
            ADVISORY,
            "torch 2.15 needs Python 3.11 or newer (Requires-Python: >=3.11 in the 2.15.0 "
            "wheel's METADATA; >=3.10 in 2.12.0 to 2.14.1): on Python 3.10, which this "
            "project allows, an unpinned torch requirement installs 2.14.x without a word",
            "raise the project's Python floor to 3.11 to get 2.15, or cap torch (<2.15) "
            "where Python 3.10 must stay",
            release="2.15",
        ),
    ]
}
# The newest release the catalogue knows: --target's default.
NEWEST = RELEASES[-1]



def rules_up_to(target: str) -> list[Rule]:
    """The rules of the releases up to `target` (a rule whose release is later is left out)."""
    return [rule for rule in RULES.values() if release_key(rule.release) <= release_key(target)]


# Changes in the 2.12 release summaries that have no rule, and why.
NO_RULE = {
    "eager process-group init (torchcomms, opt-in up to 2.15)": "every init_process_group is "
    "affected alike; code that relies on lazy init cannot be told apart by "
    "reading it: run your tests with TORCH_DISTRIBUTED_USE_TORCHCOMMS=1",
    "torchcomms replaces the c10d backends (announced, no release named)": "announced "
    "without an API to check against; the 2.12 to 2.15 wheels have no deprecation to detect",
    "MPS tensors in unified memory": "performance only: no API changed",
    "FMA in Inductor's addcdiv lowering": "numerics of compiled optimizers move "
    "closer to eager; no code has to change",
    "new features (accelerator.Graph, fused Adagrad, MX export, torch.cond in "
    "CUDA graphs, ROCm, XPU and Metal-4 additions)": "additions: nothing breaks",
}
