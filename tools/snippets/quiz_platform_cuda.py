# @title Self-check quiz: run this cell, then check your answers
# Generated from quizzes/platform-cuda.yml by tools/quiz.py; do not edit.
from IPython.display import HTML, display

QUIZ = """
1. Which CUDA build does a plain `pip install torch` give on Linux in 2.12, and
   which driver does it need?
   a) CUDA 12.8, driver 570 or newer
   b) CUDA 13.0, driver 580.65.06 or newer
   c) CUDA 13.2, any driver
   answer: b
   why: The default wheel moved to CUDA 13.0, which needs an R580 driver (580.65.06
      on Linux, 580.88 on Windows).
2. A machine has a Pascal GPU, or a GPU older than Blackwell on a driver older than
   580. Which 2.12 wheel fits it?
   a) The CUDA 12.8 wheel
   b) The CUDA 12.6 wheel
   c) The experimental CUDA 13.2 wheel
   answer: b
   why: The CUDA 12.6 wheels remain for older GPUs and drivers, and the 12.8 wheels
      are no longer built. CUDA 12.6 has no Blackwell kernels, so a Blackwell GPU
      needs a driver of 580 or newer and the default wheel.
3. What does `GreenContext.create(16)` do in 2.12?
   a) Creates a green context with 16 SMs
   b) Raises a TypeError, because the arguments are keyword-only now; write
      `GreenContext.create(num_sms=16)`
   c) Creates one with 16 % of the SMs
   answer: b
   why: The signature is `create(*, num_sms=None, workqueue_scope=None,
      workqueue_concurrency_limit=None, device_id=None)` in the installed 2.12.0.
4. Can the default CUDA 13.0 wheel use the new workqueue options (`workqueue_scope`,
   `workqueue_concurrency_limit`)?
   a) Yes, on any GPU
   b) No; they need a build and a driver of CUDA 13.1 or newer, so that wheel
      refuses them on every machine
   c) Only on Hopper GPUs
   answer: b
   why: The options (#177242) depend on CUDA 13.1 features, which the 13.0 build
      does not have.
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
