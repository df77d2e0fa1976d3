# Helper: write a notebook file from the sources of its code cells.
# Source: tools/snippets/notebook_file.py; `make stamp` copies it here.
from pathlib import Path


def write_code_notebook(path: Path, sources: list[str]) -> None:
    """A Python notebook of code cells, without outputs, as Jupyter saves one."""
    import json

    blank = {"cell_type": "code", "metadata": {}, "outputs": []}
    notebook = {
        "cells": [{**blank, "execution_count": None, "source": s} for s in sources],
        "metadata": {"kernelspec": {"name": "python3", "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(notebook, indent=1))
