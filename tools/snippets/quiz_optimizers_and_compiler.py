# @title Self-check quiz: run this cell, then check your answers
# Generated from quizzes/optimizers-and-compiler.yml by tools/quiz.py; do not edit.
from IPython.display import HTML, display

QUIZ = """
1. On which device does `torch.optim.Adagrad(..., fused=True)` start to work in
   PyTorch 2.12?
   a) CPU
   b) CUDA
   c) MPS
   d) XPU
   answer: b
   why: The CUDA kernel existed in 2.11, but the optimizer refused CUDA parameters;
      2.12 lifts that check and adds `GradScaler` support. The CPU has had a fused
      kernel since 2.4, and MPS and XPU have none in 2.12.
2. Where does Inductor's new `addcdiv` lowering use a fused multiply-add, so that
   compiled and eager results agree bit for bit?
   a) On every device
   b) On CUDA and XPU
   c) On the CPU only
   answer: b
   why: ROCm builds are left out in 2.12, and on the CPU the compiled kernel
      computes `v·(t1/t2)` where eager computes `(v·t1)/t2`, the same roundings in
      another order, so some elements differ in the last bits.
3. Why can a fused multiply-add change the result of `a * b + c`?
   a) It rounds once, after the addition, instead of rounding the product and then
      the sum
   b) It computes everything in float64
   c) It cannot; the result is always the same
   answer: a
   why: One rounding instead of two keeps the product's low bits, which the two-step
      version throws away.
4. In 2.12, what does `torch.compile(fullgraph=True)` do when no compiled frame ran
   (for example under a user `TorchDispatchMode`)?
   a) Runs eagerly without a word, as before
   b) Warns; the release notes announce an error for 2.13
   c) Raises an error
   answer: b
   why: The warning is new in 2.12; write code that does not rely on the eager
      fallback.
5. The 2.12 release notes name
   `torch._inductor.config.max_autotune_defer_layout_freezing`. What does the 2.12.0
   wheel do with it?
   a) Defers layout freezing when it is set to True
   b) Nothing; the setting does not exist, so assigning it raises AttributeError and
      its environment variable is ignored
   c) Turns max-autotune on
   answer: b
   why: The 2.12.0 config module has no such setting and no code reads the variable;
      check release notes against the code you run.
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
