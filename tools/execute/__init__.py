"""Running the lessons: the one engine (engine.py) with its kernel, the exercise harness, the pytest plugin,
the hand-off to the book's cache and the version matrix. `python -m tools.execute` is the engine's command line."""
