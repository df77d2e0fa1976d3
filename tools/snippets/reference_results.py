# Reference results: measurements recorded on real hardware.
# Source: tools/snippets/reference_results.py.
import json
from pathlib import Path


def load_reference_results(benchmark: str) -> list[dict]:
    """Recorded runs of one benchmark from the repository's results/ folder.

    [] where the folder is absent, as on Colab.
    """
    for folder in [Path.cwd(), *Path.cwd().parents]:
        if (folder / "results").is_dir() and (folder / "_toc.yml").is_file():
            files = sorted((folder / "results").glob(f"{benchmark}_*.json"))
            return [json.loads(path.read_text(encoding="utf-8")) for path in files]
    return []
