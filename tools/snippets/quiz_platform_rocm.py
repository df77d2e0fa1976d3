# @title Self-check quiz: run this cell, then check your answers
# Generated from quizzes/platform-rocm.yml by tools/quiz.py; do not edit.
from IPython.display import HTML, display

QUIZ = """
1. How does Python code tell a ROCm build of PyTorch from a CUDA build?
   a) The device is called `rocm`
   b) `torch.version.hip` is set (the device type is still `cuda`)
   c) `torch.cuda.is_available()` is False on AMD GPUs
   answer: b
   why: ROCm builds keep CUDA's names, so code written for NVIDIA runs unchanged;
      `torch.version.hip` tells them apart.
2. How do you turn on the allocator's expandable segments, new on ROCm in 2.12?
   a) Set `PYTORCH_ALLOC_CONF=expandable_segments:True` before the process allocates
      GPU memory
   b) Call a function at any point during training
   c) Nothing; they are always on
   answer: a
   why: The caching allocator reads its configuration once, when it starts, which is
      why the notebook runs one process per setting.
3. What does a 2:4 semi-structured sparse weight matrix hold?
   a) Two zeros in every row
   b) At most two non-zeros in every group of four consecutive values of a row
   c) Half its rows set to zero
   answer: b
   why: The regular pattern lets the GPU store only the kept values plus a 2-bit
      position each; hipSPARSELt runs it on AMD GPUs.
4. With FP8 (`float8_e4m3fn`) inputs on an MI350-class GPU (gfx950), which output
   dtype does hipSPARSELt's sparse product give?
   a) float8, like the inputs
   b) float32 only
   c) bfloat16 only
   answer: b
   why: The 2.12 FP8 path (#179310) runs on gfx950 only and returns float32 only;
      another `out_dtype` raises an error.
5. Which operations does PyTorch 2.12 run on AMD's rocSHMEM?
   a) None; symmetric memory is NVIDIA-only
   b) The NVSHMEM-based symmetric-memory operations (puts, gets, broadcast,
      all-to-all), under the same `torch.ops.symm_mem.nvshmem_*` names
   c) Only `all_reduce`
   answer: b
   why: 2.12 ports them to rocSHMEM (#173518) and keeps the `nvshmem_*` names, so
      code written for NVSHMEM calls the same ops on a ROCm build.
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
