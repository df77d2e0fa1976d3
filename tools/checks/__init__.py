"""The checks that read the sources without running them: conventions, lesson size and timing, types."""
