# @title Self-check quiz: run this cell, then check your answers
# Generated from quizzes/platform-xpu.yml by tools/quiz.py; do not edit.
from IPython.display import HTML, display

QUIZ = """
1. How do you install PyTorch 2.12 for an Intel GPU?
   a) Install `torch`, then the Intel Extension for PyTorch
   b) `pip install torch --index-url https://download.pytorch.org/whl/xpu`, plus
      Intel's GPU driver
   c) Build from source; there are no XPU wheels
   answer: b
   why: Intel GPU support is part of upstream `torch.xpu`; the extension is
      discontinued and should not be installed next to 2.12.
2. What does 2.12 add to `torch.xpu.get_device_properties`?
   a) `memory_clock_rate` (MHz) and `memory_bus_width` (bits)
   b) The measured bandwidth
   c) The number of tensor cores
   answer: a
   why: Both fields are new in 2.12 (#171967); with a transfers-per-clock factor
      they give a theoretical bandwidth.
3. Why does the theoretical bandwidth computed from those two fields need care on
   Intel GPUs?
   a) The clock is reported in kHz
   b) The driver reports the width of one memory channel, not of the whole bus, so
      compare the figure with a measured copy
   c) The formula only holds on CUDA
   answer: b
   why: A per-channel width makes the formula far too low; a measured copy shows
      whether the figure means anything.
4. A copy `dst.copy_(src)` of N bytes takes t seconds. How much memory traffic per
   second is that?
   a) N / t
   b) 2 N / t
   c) N / (2 t)
   answer: b
   why: The copy reads every byte once and writes it once.
5. Which backend runs `torch.accelerator.Graph` capture and replay in 2.12.0?
   a) CUDA
   b) XPU, the only backend that implements it in that release
   c) Every backend
   answer: b
   why: Only XPU registers an implementation in 2.12.0 (#176421); on CUDA, capture
      with `torch.cuda.graph`.
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
