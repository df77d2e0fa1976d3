# Benchmark cell. Source: tools/snippets/eigh_benchmark.py;
# tools/records/record_eigh.py records the same code into results/.
import importlib.util


def random_symmetric(
    batch: int, n: int, device: torch.device, dtype: torch.dtype = torch.float32
) -> torch.Tensor:
    """A batch of random symmetric matrices, shape (batch, n, n)."""
    a = torch.randn(batch, n, n, device=device, dtype=dtype)
    return (a + a.mT) / 2


def eigh_one_by_one(matrices: torch.Tensor) -> list:
    """What code did before batching: one eigh call (one launch or more) per matrix."""
    return [torch.linalg.eigh(m) for m in matrices]


def eigh_benchmark_sizes(device: torch.device) -> tuple[list[int], list[int]]:
    """Matrix and batch sizes: small on a CPU (a short run), large on an accelerator."""
    if device.type == "cpu":
        return [8, 32], [1, 16, 256]
    return [8, 32, 64], [1, 16, 256, 2048]


def eigh_implementations(device: torch.device) -> dict[str, tuple]:
    """What the benchmark times on this device: name -> (function, input conversion).

    The peer library is NumPy on the CPU and CuPy on CUDA where it is installed.
    """
    found = {
        "torch batched": (torch.linalg.eigh, lambda t: t),
        "torch loop": (eigh_one_by_one, lambda t: t),
    }
    if device.type == "cpu":
        found["numpy batched"] = (np.linalg.eigh, lambda t: t.numpy())
    elif device.type == "cuda" and importlib.util.find_spec("cupy") is not None:
        import cupy

        found["cupy batched"] = (cupy.linalg.eigh, cupy.asarray)
    return found


def benchmark_eigh(
    device: torch.device, timer, sizes: list[int], batches: list[int]
) -> list[dict]:
    """Median seconds of each implementation, per matrix size and batch.

    Each implementation is timed over every size before the next one starts.
    """
    stacks = {(n, b): random_symmetric(b, n, device) for n in sizes for b in batches}
    rows = []
    for impl, (fn, convert) in eigh_implementations(device).items():
        for (n, batch), matrices in stacks.items():
            seconds = timer(fn, convert(matrices))
            row = {"impl": impl, "n": n, "batch": batch, "dtype": "float32"}
            rows.append(row | {"seconds": seconds})
    return rows
