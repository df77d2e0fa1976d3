# @title Self-check quiz: run this cell, then check your answers
# Generated from quizzes/graphs.yml by tools/quiz.py; do not edit.
from IPython.display import HTML, display

QUIZ = """
1. Which backend implements the new `torch.accelerator.Graph` in PyTorch 2.12.0?
   a) CUDA
   b) XPU
   c) MPS
   d) Every accelerator
   answer: b
   why: Only XPU registers an implementation in 2.12.0 (#176421); on CUDA the
      constructor raises "Graph is not supported on device type", so capture with
      `torch.cuda.CUDAGraph` there.
2. How can `torch.cond` be captured inside a CUDA graph as conditional IF nodes in
   2.12?
   a) With `torch.compile(mode="reduce-overhead")`, through Inductor
   b) With the `eager` or `cudagraphs` backend of `torch.compile`, or by hand, on
      CUDA 12.4 or newer
   c) On any GPU, ROCm included
   answer: b
   why: Inductor does not use conditional nodes yet (#168912), and ROCm builds do
      not have them in 2.12.
3. What replaces the CUDA-only `torch.cuda.is_current_stream_capturing()` in 2.12?
   a) `torch.Stream.is_capturing()`, a method of the device-agnostic stream
   b) `torch.compiler.is_compiling()`
   c) Nothing; the CUDA function stays the only way
   answer: a
   why: Streams gained `is_capturing()` (#171443); a backend without graph capture
      raises instead (the CPU in 2.12.0), and `torch.compiler.is_compiling()`
      answers another question.
4. How does the cond-in-graphs notebook check that both branches of a compiled
   `torch.cond` live in one graph?
   a) The compiled step runs faster than eager
   b) A counting backend records every compiled graph; there must be exactly one,
      holding a `cond` node
   c) It prints the result of both branches
   answer: b
   why: A timing or a printout cannot fail for the right reason; counting the graphs
      the backend receives can.
5. What does labelling the kernels of a CUDA graph in a profiler trace need in 2.12?
   a) Nothing; every captured kernel is labelled automatically on every device
   b) `torch.cuda.graph(..., enable_annotations=True)` with `mark_kernels`,
      cuda-bindings and a CUDA 13.1+ driver, then the merge tool
   c) A ROCm build
   answer: b
   why: `enable_annotations=True` turns recording on for the capture (#179867);
      `mark_kernels` labels the kernels, and `python -m
      torch.cuda._annotate_cuda_graph_trace` merges the labels into the trace (both
      #179768).
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
