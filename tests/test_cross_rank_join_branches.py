"""cross-rank-join's worker and the cells that read it, on backends this machine does not have.

The worker script is taken from the notebook and run by two threads, one per rank, against a simulated
backend: gloo runs each collective to the end before returning; NCCL and XCCL queue it and return, so the
host runs ahead until `torch.accelerator.synchronize()`; a barrier blocks on every backend (ProcessGroupNCCL
and ProcessGroupXCCL synchronise the stream for a barrier). Each backend keeps its own Flight Recorder: NCCL's
and XCCL's are dumped by `_dump_nccl_trace` and `_dump_xccl_trace`, and `_dump_fr_trace` (gloo's) is then
empty. NCCL's profiler events carry the sequence number; gloo's and 2.12 XCCL's carry none. The notebook's
own cells then read what the ranks wrote, with their assertions.
"""

from __future__ import annotations

import builtins
import pickle
import subprocess
import threading
import time
import types
from collections import defaultdict
from typing import Any

import matplotlib
import pandas as pd
import pytest

from tools.course import ROOT, cell_source, read_notebook

matplotlib.use("Agg")
import matplotlib.pyplot as plt

pytestmark = pytest.mark.integration  # kernels, book builds, mypy or torch (make integration)

JOIN = ROOT / "notebooks" / "distributed" / "cross-rank-join.ipynb"
WORLD = 2


def cell_with(marker: str) -> str:
    cells = [cell_source(c) for c in read_notebook(JOIN)["cells"] if c["cell_type"] == "code"]
    found = [source for source in cells if marker in source]
    assert len(found) == 1, f"expected one code cell with {marker!r}, found {len(found)}"
    return found[0]


def script(name: str) -> str:
    """A worker script of the notebook, without its %%writefile line."""
    source = cell_with(f"%%writefile {{work}}/{name}")
    return source.split("\n", 1)[1]


class Backend:
    """The collectives of one job of two ranks, as a backend runs them."""

    def __init__(self, name: str, seq_offset: int = 0) -> None:
        self.name, self.seq_offset = name, seq_offset
        self.queued = name in ("nccl", "xccl")  # the host returns before the collective is done
        self.condition = threading.Condition()
        self.arrived: dict[int, set[int]] = defaultdict(set)

    def wait_for(self, seqs: list[int]) -> None:
        with self.condition:
            done = self.condition.wait_for(lambda: all(len(self.arrived[s]) == WORLD for s in seqs), timeout=10)
        assert done, "a rank never issued a collective: the simulated job hangs"


class Rank:
    """One rank's view: its collectives, its Flight Recorder and its profiler."""

    def __init__(self, backend: Backend, rank: int) -> None:
        self.backend, self.rank = backend, rank
        self.seq = 0
        self.entries: list[dict[str, Any]] = []
        self.events: list[types.SimpleNamespace] | None = None  # a list while the profiler records

    def issue(self, name: str) -> None:
        backend = self.backend
        self.seq += 1
        seq, title = self.seq, f"{backend.name}:{name}"
        start = time.time_ns()
        self.entries.append({"collective_seq_id": seq, "profiling_name": title, "process_group": ("0", "default_pg"),
                             "time_created_ns": start})
        with backend.condition:
            backend.arrived[seq].add(self.rank)
            backend.condition.notify_all()
        if not backend.queued or name == "barrier":
            backend.wait_for([seq])
        if self.events is not None:
            elapsed = (time.time_ns() - start) / 1e3
            carried = seq + backend.seq_offset if backend.name == "nccl" else None
            self.events.append(event(title, start / 1e3, elapsed, carried))

    def synchronize(self) -> None:
        self.backend.wait_for(list(range(1, self.seq + 1)))

    def dump(self, recorder: str) -> bytes:
        own = "_dump_fr_trace" if self.backend.name == "gloo" else f"_dump_{self.backend.name}_trace"
        return pickle.dumps({"entries": self.entries if recorder == own else []})


class Event2_12:
    """A profiler event as torch 2.12 shapes it: the sequence number in event_metadata."""

    metadata_json = None

    def __init__(self, name: str, start_us: float, elapsed_us: float, seq: int | None) -> None:
        self.name = name
        self.time_range = types.SimpleNamespace(start=start_us, elapsed_us=lambda: elapsed_us)
        self.event_metadata = types.SimpleNamespace(seq=seq) if seq is not None else types.SimpleNamespace()


def event(name: str, start_us: float, elapsed_us: float, seq: int | None) -> Event2_12:
    return Event2_12(name, start_us, elapsed_us, seq)


def fake_modules(me: Rank, results: dict[int, dict[str, Any]], recorders: tuple[str, ...]) -> dict[str, Any]:
    """The modules the worker imports, answered by this rank's simulated backend."""
    device = types.SimpleNamespace(type={"gloo": "cpu", "nccl": "cuda", "xccl": "xpu"}[me.backend.name])
    dist = types.SimpleNamespace(
        barrier=lambda: me.issue("barrier"),
        all_reduce=lambda t: me.issue("all_reduce"),
        broadcast=lambda t, src: me.issue("broadcast"),
    )

    class profile:  # torch.profiler's name
        def __init__(self, activities: list[str]) -> None:
            self.recorded: list[types.SimpleNamespace] = []

        def __enter__(self) -> profile:
            me.events = self.recorded
            return self

        def __exit__(self, *exc: object) -> None:
            me.events = None

        def events(self) -> list[types.SimpleNamespace]:
            return self.recorded

    c10d = types.SimpleNamespace(**{name: (lambda name=name: me.dump(name)) for name in recorders})
    torch = types.SimpleNamespace(
        full=lambda size, value, device: None,
        accelerator=types.SimpleNamespace(synchronize=me.synchronize),
        _C=types.SimpleNamespace(_distributed_c10d=c10d),
        distributed=dist,
    )
    seq_of: dict[str, Any] = {}
    exec(script("seq_of.py"), seq_of)

    def finish(name: str, result: dict[str, Any]) -> None:
        results[me.rank] = {"pid": me.rank, "device": device.type, **result}

    return {
        "torch": torch,
        "torch.distributed": torch,
        "torch.profiler": types.SimpleNamespace(profile=profile, ProfilerActivity=types.SimpleNamespace(CPU="cpu")),
        "join": types.SimpleNamespace(backend=me.backend.name, device=device, finish=finish, rank=me.rank),
        "seq_of": types.SimpleNamespace(seq_of=seq_of["seq_of"]),
    }


def run_worker(backend: Backend, recorders: tuple[str, ...], source: str | None = None) -> list[dict[str, Any]]:
    """The notebook's sequence.py on two threads, one per rank; what each rank passed to finish()."""
    source = source or script("sequence.py")
    results: dict[int, dict[str, Any]] = {}
    errors: list[BaseException] = []

    def rank_main(rank: int) -> None:
        fakes = fake_modules(Rank(backend, rank), results, recorders)

        def importer(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> Any:
            if name in fakes:
                return fakes[name] if fromlist else fakes[name.split(".")[0]]
            return builtins.__import__(name, globals, locals, fromlist, level)

        try:
            exec(source, {"__builtins__": {**vars(builtins), "__import__": importer}, "__name__": "__main__"})
        except BaseException as error:  # reported by the test thread
            errors.append(error)

    threads = [threading.Thread(target=rank_main, args=(rank,)) for rank in range(WORLD)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    if errors:
        raise errors[0]
    return [results[rank] for rank in range(WORLD)]


def read_cells(results: list[dict[str, Any]], until: str = "slow = durations.loc") -> dict[str, Any]:
    """The notebook's cells from the job's run to the figure, on what the simulated ranks wrote."""
    skipped: list[str] = []
    namespace: dict[str, Any] = {
        "pd": pd, "plt": plt, "skip": skipped.append, "skipped": skipped,
        "torchrun": lambda *args, **options: subprocess.CompletedProcess(args, 0, ""),
        "rank_results": lambda prefix: results, "job_failure": lambda job: "",
    }
    cells = [cell_source(c) for c in read_notebook(JOIN)["cells"] if c["cell_type"] == "code"]
    first = next(i for i, source in enumerate(cells) if 'torchrun("sequence.py"' in source)
    for source in cells[first:]:
        exec(source, namespace)
        if until in source:
            break
    plt.close("all")
    return namespace


NCCL_RECORDERS = ("_dump_fr_trace", "_dump_nccl_trace", "_dump_nccl_trace_json")
XCCL_RECORDERS = ("_dump_fr_trace", "_dump_xccl_trace")


@pytest.mark.parametrize(("backend", "recorders", "seq_from_profiler"), [
    ("gloo", ("_dump_fr_trace", "_dump_nccl_trace"), False),  # a CUDA build of torch running on the CPU
    ("nccl", NCCL_RECORDERS, True),
    ("xccl", XCCL_RECORDERS, False),
])
def test_the_straggler_is_the_third_steps_all_reduce_alone(backend: str, recorders: tuple[str, ...],
                                                           seq_from_profiler: bool) -> None:
    results = run_worker(Backend(backend), recorders)
    cells = read_cells(results)  # the notebook's assertions run here
    lag, worst = cells["lag"], cells["worst"]
    assert cells["arrival_ms"].loc[worst, "collective"] == f"{backend}:all_reduce"
    assert lag[worst] > 250 and (lag[cells["in_steps"]].drop(worst) < 100).all(), lag.round().to_dict()
    assert bool(cells["skipped"]) is not seq_from_profiler, cells["skipped"]
    assert worst[1] in cells["durations"].index


def test_without_a_wait_after_each_collective_nccl_shows_the_broadcast_late_too() -> None:
    """The worker before this lesson's fix: one synchronize per step. The host queues the third step's
    all_reduce and broadcast together, so rank 1 is about 300 ms late at both; the cell must say so."""
    before = script("sequence.py").replace(
        """        for collective in (dist.all_reduce, lambda x: dist.broadcast(x, src=0)):
            collective(t)
            if device.type != "cpu":  # finish each collective before the next
                torch.accelerator.synchronize()""",
        """        dist.all_reduce(t)
        dist.broadcast(t, src=0)
        if device.type != "cpu":
            torch.accelerator.synchronize()""")
    assert before != script("sequence.py"), "the worker's loop changed: update this test"
    with pytest.raises(AssertionError):
        read_cells(run_worker(Backend("nccl"), NCCL_RECORDERS, before), until="others = lag")


def test_an_xccl_job_reads_xccls_own_recorder() -> None:
    results = run_worker(Backend("xccl"), XCCL_RECORDERS)
    assert [len(result["recorded"]) for result in results] == [10, 10]
    assert {entry["name"] for entry in results[0]["recorded"]} >= {"xccl:all_reduce", "xccl:broadcast"}


def test_without_a_recorder_of_its_own_the_count_check_says_so() -> None:
    """An XPU build without `_dump_xccl_trace`: the worker falls back to gloo's recorder, which is empty."""
    results = run_worker(Backend("xccl"), ("_dump_fr_trace",))
    with pytest.raises(AssertionError, match="2 barriers and 4 x 2 collectives"):
        read_cells(results)


def test_a_profiler_seq_that_is_not_the_recorders_is_reported() -> None:
    """Untested on NCCL hardware: if the profiler's Seq were off by one from collective_seq_id, the join by
    seq would pick the wrong rows; the cell must stop with a message, not a KeyError."""
    results = run_worker(Backend("nccl", seq_offset=1), NCCL_RECORDERS)
    with pytest.raises(AssertionError, match="not the recorder's collective_seq_id"):
        read_cells(results)


def test_an_xccl_job_without_xccl_events_says_profiler_and_recorder_disagree() -> None:
    """An XPU build whose profiler records no `xccl:*` event: the worker sends an empty list, which the cell
    must report as a disagreement, not as pandas' KeyError on sorting a frame without columns."""
    results = run_worker(Backend("xccl"), XCCL_RECORDERS)
    for result in results:
        result["profiled"] = []
    with pytest.raises(AssertionError, match="profiler and recorder disagree"):
        read_cells(results)
