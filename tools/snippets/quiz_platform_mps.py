# @title Self-check quiz: run this cell, then check your answers
# Generated from quizzes/platform-mps.yml by tools/quiz.py; do not edit.
from IPython.display import HTML, display

QUIZ = """
1. Where does PyTorch 2.12 allocate every MPS tensor?
   a) In GPU-private memory, copied to the CPU when needed
   b) In unified memory, which the CPU and GPU of an Apple chip share
   c) In the CPU's memory, with the GPU reading over PCIe
   answer: b
   why: 2.12 allocates MPS tensors in unified memory (#175818) and lists the change
      as BC-breaking, because performance characteristics may change.
2. Which of these operations gains an MPS kernel in 2.12?
   a) `torch.linalg.qr`
   b) `torch.linalg.eigh`
   c) A float8 matrix product
   answer: a
   why: `qr`, `cholesky_solve`, `index_reduce`, `mvlgamma`, `nonzero_static` and
      Gamma sampling gain kernels; `eigh` still has none on MPS, and MPS has no
      float8 dtypes.
3. The release notes name a Metal library loader, `torch._C._mps_loadMetalllib`. How
   do you find out whether your torch has it?
   a) Trust the release notes
   b) Check with `hasattr(torch._C, "_mps_loadMetalllib")`; the 2.12.0 wheels do not
      have it
   c) Import it and let the error tell you later
   answer: b
   why: Check release-note items against the installed code;
      `torch.mps.compile_shader` is what 2.12 offers for your own Metal code.
4. Which macOS do the 2.12 wheels need for MPS?
   a) macOS 12 or newer
   b) macOS 14 or newer
   c) macOS 26 only
   answer: b
   why: The wheels need macOS 14+; macOS 26 and newer also use the precompiled Metal
      4 shaders.
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
