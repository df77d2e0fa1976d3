# @title Self-check quiz: run this cell, then check your answers
# Generated from quizzes/batched-eigh.yml by tools/quiz.py; do not edit.
from IPython.display import HTML, display

QUIZ = """
1. In PyTorch 2.12, which solver does `torch.linalg.eigh` use on a CUDA GPU?
   a) MAGMA
   b) One of `syevj_batched`, a loop of `syevj` and a loop of `syevd`, picked per
      call by a heuristic
   c) cuSOLVER's batched solver (the `syevj_batched` path), always, whatever the
      batch and matrix size
   d) LAPACK on the CPU, matrix by matrix
   answer: c
   why: 2.12 sends every CUDA `eigh` and `eigvalsh` call to the batched solver and
      deprecates MAGMA for them (#174619, #175403). The heuristic was the 2.11
      default, and MAGMA ran only when `preferred_linalg_library` asked for it.
2. What does `torch.backends.cuda.preferred_linalg_library("magma")` change for
   `eigh` in 2.12?
   a) It makes `eigh` use MAGMA again
   b) It no longer picks the solver; `eigh` warns once that MAGMA is deprecated and
      uses cuSOLVER
   c) It raises an error
   answer: b
   why: In 2.12 `eigh` and `eigvalsh` use cuSOLVER whatever the preference, and warn
      once when it names MAGMA; drop the call or ask for "cusolver".
3. How does the chapter prove a batched decomposition right?
   a) Compare the eigenvectors entry by entry with NumPy's
   b) Check the reconstruction V diag(w) Vᵀ = A, the orthonormality Vᵀ V = I, and
      the eigenvalues against a float64 reference
   c) Check that every eigenvalue is positive
   answer: b
   why: Eigenvectors are unique only up to sign (or a rotation for repeated
      eigenvalues), so check the invariants that define the answer.
4. Where does one batched call save the most over a Python loop of `eigh` calls?
   a) A few large matrices on a CPU
   b) Many small matrices on a GPU, where the cost of each call and launch dominates
   c) Nowhere; the two do the same work
   answer: b
   why: The loop pays the call, the dispatcher and a launch per matrix; the batched
      call pays them once.
5. Which inputs have an open silent-correctness report for batched `eigh` on CUDA?
   a) float64 batches
   b) complex64 batches, whose eigenvectors can come back non-orthonormal
   c) Any batch of 3 × 3 matrices
   answer: b
   why: pytorch/pytorch#192483 reports it for complex64 `eigh` on CUDA, which 2.12
      sends to cuSOLVER's batched solver; decompose in complex128 (or on the CPU)
      and check the result.
"""


def read_quiz(text):
    """Questions as dicts: text, choices, answer (an index) and reason."""
    import re

    questions, field = [], None
    for line in text.strip().splitlines():
        item = re.match(r"(\d+)\. |   ([a-f])\) |   answer: |   why: ", line)
        if item and item.group(1):
            questions.append(dict(text="", choices=[], answer=None, reason=""))
            field = "text"
        elif item and item.group(2):
            questions[-1]["choices"].append("")
            field = "choice"
        elif item and "answer" in item.group(0):
            questions[-1]["answer"] = "abcdef".index(line.split(":")[1].strip())
            continue
        elif item:
            field = "reason"
        words = line[item.end() if item else 0 :].strip()
        if field == "choice":
            choices = questions[-1]["choices"]
            choices[-1] = f"{choices[-1]} {words}".strip()
        else:
            questions[-1][field] = f"{questions[-1][field]} {words}".strip()
    return questions


def as_html(text):
    """Escape, then show `code` as code."""
    import html
    import re

    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def static_quiz(questions):
    """Every question with its choices, the answer and its reason in a toggle."""
    parts = []
    for number, q in enumerate(questions, 1):
        items = "".join(f"<li>{as_html(c)}</li>" for c in q["choices"])
        letter = "abcdef"[q["answer"]]
        correct = as_html(q["choices"][q["answer"]])
        parts.append(
            f"<p><strong>{number}. {as_html(q['text'])}</strong></p>"
            f'<ol type="a">{items}</ol><details><summary>Answer</summary>'
            f"<p>({letter}) {correct}. {as_html(q['reason'])}</p></details>"
        )
    return HTML('<div class="course-quiz">' + "".join(parts) + "</div>")


def quiz_form(questions, widgets):
    """One set of radio buttons per question and a Check button that gives feedback."""
    picks = [
        widgets.RadioButtons(
            options=[(f"({'abcdef'[i]}) {c}", i) for i, c in enumerate(q["choices"])],
            value=None,
            layout=widgets.Layout(width="auto"),
        )
        for q in questions
    ]
    feedback = widgets.HTML()

    def check(_):
        lines, right = [], 0
        for number, (q, pick) in enumerate(zip(questions, picks, strict=True), 1):
            if pick.value is None:
                lines.append(f"{number}. not answered yet")
                continue
            right += pick.value == q["answer"]
            verdict = "right" if pick.value == q["answer"] else "not quite"
            lines.append(f"{number}. {verdict}: {as_html(q['reason'])}")
        score = f"<p><strong>{right} of {len(questions)} right.</strong></p>"
        feedback.value = score + "<br>".join(lines)

    button = widgets.Button(description="Check my answers", button_style="primary")
    button.on_click(check)
    rows = []
    for number, (q, pick) in enumerate(zip(questions, picks, strict=True), 1):
        rows += [widgets.HTML(f"<strong>{number}. {as_html(q['text'])}</strong>"), pick]
    return widgets.VBox([*rows, button, feedback])


questions = read_quiz(QUIZ)
display(static_quiz(questions))
try:
    import ipywidgets
except ImportError:  # the answers above are in their toggles
    ipywidgets = None
if ipywidgets is not None:
    form = quiz_form(questions, ipywidgets)
    if hasattr(form, "_repr_mimebundle_"):  # ipywidgets 8: a line for static pages
        bundle = form._repr_mimebundle_()
        bundle["text/plain"] = "(in a live notebook, an answer form appears here)"
        display(bundle, raw=True)
    else:
        display(form)
