# Benchmark cell. Source: tools/snippets/eigh_benchmark.py;
# tools/record_eigh.py records the same code into results/.
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


def benchmark_eigh(
    device: torch.device, timer, sizes: list[int], batches: list[int]
) -> list[dict]:
    """Median seconds of batched eigh, a loop and the peer library, per size."""
    peer = None
    if device.type == "cpu":
        peer = ("numpy batched", np.linalg.eigh, lambda t: t.numpy())
    elif device.type == "cuda" and importlib.util.find_spec("cupy") is not None:
        import cupy

        peer = ("cupy batched", cupy.linalg.eigh, cupy.asarray)
    rows = []
    for n in sizes:
        for batch in batches:
            matrices = random_symmetric(batch, n, device)
            timings = {
                "torch batched": timer(torch.linalg.eigh, matrices),
                "torch loop": timer(eigh_one_by_one, matrices),
            }
            if peer is not None:
                name, peer_eigh, convert = peer
                timings[name] = timer(peer_eigh, convert(matrices))
            for impl, seconds in timings.items():
                rows.append(
                    {
                        "impl": impl,
                        "n": n,
                        "batch": batch,
                        "dtype": "float32",
                        "seconds": seconds,
                    }
                )
    return rows
