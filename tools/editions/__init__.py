"""The Chinese and Korean editions, by stage: catalogs.py (the editions and their .po files), markup.py (what a
translation keeps verbatim), extract.py (the English messages and their merge into the catalogs), gate.py (the
translation gate), notebooks.py (translated notebooks and student copies), sphinx_build.py (one Sphinx build of
the book), build.py (the editions' HTML), and __main__.py (`python -m tools.editions`)."""
