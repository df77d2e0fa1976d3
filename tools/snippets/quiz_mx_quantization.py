# @title Self-check quiz: run this cell, then check your answers
# Generated from quizzes/mx-quantization.yml by tools/quiz.py; do not edit.
from IPython.display import HTML, display

QUIZ = """
1. What did PyTorch 2.12 fix for exporting MX-quantized models?
   a) `torch.export.save` and `load` serialize `torch.float8_e8m0fnu`, the dtype of
      MX scales
   b) `torch.export` learned to export `torch.float4_e2m1fn_x2` buffers
   c) It added MX support to TorchScript
   answer: a
   why: Before 2.12 the serializer had no entry for E8M0, so saving failed; in 2.12
      the program round-trips (#176270).
2. Which dtype still fails to serialize in 2.12.0, so that exported MXFP4 weights
   are kept as `uint8` bytes?
   a) `torch.float8_e4m3fn`
   b) `torch.float8_e8m0fnu`
   c) `torch.float4_e2m1fn_x2`
   answer: c
   why: The packed FP4 dtype is not in the serializer in 2.12.0, so each byte holds
      two FP4 codes as `uint8`.
3. How many bits does MXFP8 store per value, with blocks of 32 values sharing one
   E8M0 scale?
   a) 8
   b) 8.25
   c) 9
   d) 16
   answer: b
   why: Each element takes 8 bits, and the 8-bit scale shared by 32 elements adds
      8/32 = 0.25 bit to each.
4. On torch 2.12.0, what does casting 500.0 to `torch.float8_e4m3fn` give?
   a) 448, the largest finite value
   b) NaN
   c) An error
   answer: b
   why: The 2.12.0 cast does not saturate (later releases do), so an MX quantizer
      clamps to ±448 before it casts.
5. How does the mx-export notebook check a program after `torch.export.save` and
   `torch.export.load`?
   a) Its outputs must be close to the original's within a loose tolerance
   b) Its outputs must be bit-identical to the original program's
   c) The saved file must exist
   answer: b
   why: Serialization must not change a single bit of the weights or scales, so the
      test is exact equality.
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
