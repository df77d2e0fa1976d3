"""The workshop kit: tracks by room and day, lesson timings, the exercise index, Colab runtimes, student copies.

rooms.yml (read by rooms.py) holds the rooms and learning objectives; lessons.py reads each notebook's `course`
metadata; tracks.py plans each room's half and full day; pages.py writes the generated Markdown; timing.py applies
the timing rule to run records; colab.py sets Colab's runtime metadata; student.py writes the student copies.
`python -m tools.workshop` is the command line (__main__.py). Running a student copy as a learner is tools/execute's
job: tools/execute/student_copies.py.
"""
