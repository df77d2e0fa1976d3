# @title Self-check quiz: run this cell, then check your answers
# Generated from quizzes/distributed.yml by tools/quiz.py; do not edit.
from IPython.display import HTML, display

QUIZ = """
1. In 2.12, which port does `torchrun` use on one node without `--master-port` or
   `--standalone`?
   a) 29500, as before
   b) A free port that the system picks
   c) It refuses to start
   answer: b
   why: In 2.12 a one-node job without a port meets on a free port that the system
      picks (#175699); pin one with `--master-port` when another process must know
      it, and do not hard-code 29500.
2. What should code compiled with `torch.compile` use instead of the
   `torch.distributed.nn.functional` collectives?
   a) `torch.distributed._functional_collectives`
   b) The same functions; they compile fine
   c) Plain Python loops over ranks
   answer: a
   why: In 2.12 the old collectives fail under `torch.compile(fullgraph=True)`
      (#177342); without `fullgraph=True` they graph-break, run eagerly and emit a
      `FutureWarning` that points to the functional collectives. Of those,
      `broadcast` alone has no autograd.
3. What can the c10d functional collectives take as their group in 2.12?
   a) Only the group's name
   b) A `ProcessGroup` object as well as its name, so a custom op can carry the
      group
   c) Only a list of ranks
   answer: b
   why: Their schemas now say `Any` (#172795), which lets a custom op take the
      group, eager and under `torch.compile(fullgraph=True)`.
4. What does a gloo job need before `fr_trace` can diagnose it in 2.12?
   a) Nothing; a watchdog dumps the Flight Recorder on timeout
   b) The worker writes its Flight Recorder dump itself, and the 2.12 gloo dumps
      need a small repair
   c) It cannot be done; `fr_trace` reads NCCL dumps only
   answer: b
   why: `fr_trace` reads gloo dumps in 2.12 (#180268); on gloo the worker writes the
      dump itself, and its `pg_config` needs the repair the notebook detects and
      makes.
5. What happens with `TORCH_DISTRIBUTED_USE_TORCHCOMMS=1` when the torchcomms
   package does not import?
   a) An ImportError
   b) PyTorch falls back to the classic backends, silently
   c) The package is installed on the fly
   answer: b
   why: The opt-in falls back without a word, so check which backend a job really
      uses before you trust it.
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
