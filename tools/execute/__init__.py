"""Running the lessons: nbval with the course's pytest plugin (pytest_plugin.py, nbval_run.py), the one command that
runs it (command.py), the exercise harness, the hand-off to the book's cache, the version matrix, and the learner's
Run All of a student copy (kernel.py, student_copies.py)."""
