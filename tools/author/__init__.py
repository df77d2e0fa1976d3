"""What authors run while they write: stamping shared snippets into lessons, and the quizzes."""
