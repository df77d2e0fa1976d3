# @title Self-check quiz: run this cell, then check your answers
# Generated from quizzes/migration.yml by tools/quiz.py; do not edit.
from IPython.display import HTML, display

QUIZ = """
1. Why may you never see TorchScript's deprecation warning when you call
   `torch.jit.script` in 2.12?
   a) TorchScript is not deprecated
   b) It is a `DeprecationWarning` raised from inside torch's own code, and Python's
      default filters hide those
   c) It is only printed on GPUs
   answer: b
   why: On 2.12.0 the warning points at torch/jit/_script.py, so it stays hidden
      even in a script's `__main__`; run with `-W default::DeprecationWarning` or
      record warnings to find the calls.
2. What replaces TorchScript for a program you save and deploy?
   a) `torch.export` (export, save, load), with ExecuTorch for phones and embedded
      devices
   b) `torch.compile`, which writes a deployable file
   c) `pickle` of the model
   answer: a
   why: `torch.compile` is for speed in Python; `torch.export` produces the saved,
      deployable program.
3. You trace a model that contains `if x.sum() > 0:` with `torch.jit.trace`. What
   does the trace hold?
   a) Both branches, chosen at run time
   b) Only the branch the example input took
   c) Nothing; tracing refuses the model
   answer: b
   why: A trace records the operations that ran; `torch.export` with `torch.cond`
      keeps both branches.
4. What does `python -m tools.upgrade_scan my_project/` exit with when it finds code
   that 2.12 affects?
   a) 0
   b) 1
   c) 2
   answer: b
   why: 0 means nothing found, 1 findings, 2 a missing path or a file that does not
      parse.
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
