# @title Quiz runtime (run this cell; the questions are in the cell after it)
# Source: tools/snippets/quiz.py (`make stamp` copies it here); needs no course file.
from IPython.display import HTML, display

# The quiz's own words; a translated notebook passes its own (show_quiz's labels).
LABELS = {
    "answer": "Answer",
    "not answered": "not answered yet",
    "right": "right",
    "not quite": "not quite",
    "score": "{right} of {total} right.",
    "reveal": "Reveal the answers",
    "check": "Check my answers",
    "live form": "(in a live notebook, an answer form appears here)",
}


def read_quiz(text):
    """Questions as dicts: text, choices, answer (an index), reason, room."""
    import re

    questions, field = [], None
    for line in text.strip().splitlines():
        item = re.match(
            r"(\d+)\. |   ([a-f])\) |   answer: |   why: |   room: yes$", line
        )
        if item and item.group(1):
            question = dict(text="", choices=[], answer=None, reason="", room=False)
            questions.append(question)
            field = "text"
        elif item and "room" in item.group(0):
            questions[-1]["room"] = True
            continue
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


def static_quiz(questions, room=False, labels=LABELS):
    """Questions, choices, and each answer in a closed toggle (none in room mode)."""
    parts = []
    for number, q in enumerate(questions, 1):
        items = "".join(f"<li>{as_html(c)}</li>" for c in q["choices"])
        parts.append(f"<p><strong>{number}. {as_html(q['text'])}</strong></p>")
        parts.append(f'<ol type="a">{items}</ol>')
        if not room:
            letter = "abcdef"[q["answer"]]
            correct = as_html(q["choices"][q["answer"]])
            reason = as_html(q["reason"])
            parts.append(
                f"<details><summary>{labels['answer']}</summary>"
                f"<p>({letter}) {correct}. {reason}</p></details>"
            )
    return HTML('<div class="course-quiz">' + "".join(parts) + "</div>")


def answer_lines(questions, picks=None, labels=LABELS):
    """A line per question: the verdict on the picks, or the answer without picks."""
    lines, right = [], 0
    for number, q in enumerate(questions, 1):
        reason = as_html(q["reason"])
        if picks is None:
            letter = "abcdef"[q["answer"]]
            correct = as_html(q["choices"][q["answer"]])
            lines.append(f"{number}. ({letter}) {correct}: {reason}")
        elif picks[number - 1] is None:
            lines.append(f"{number}. {labels['not answered']}")
        else:
            right += picks[number - 1] == q["answer"]
            is_right = picks[number - 1] == q["answer"]
            verdict = labels["right" if is_right else "not quite"]
            lines.append(f"{number}. {verdict}: {reason}")
    return lines, right


def quiz_form(questions, widgets, room=False, labels=LABELS):
    """Radio buttons per question and a Check button (a Reveal button in room mode)."""
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
        lines, right = answer_lines(questions, [pick.value for pick in picks], labels)
        score = labels["score"].format(right=right, total=len(questions))
        score = f"<p><strong>{score}</strong></p>"
        feedback.value = score + "<br>".join(lines)

    def reveal(_):
        feedback.value = "<br>".join(answer_lines(questions, labels=labels)[0])

    label = labels["reveal" if room else "check"]
    button = widgets.Button(description=label, button_style="primary")
    button.on_click(reveal if room else check)
    rows = []
    for number, (q, pick) in enumerate(zip(questions, picks, strict=True), 1):
        rows += [widgets.HTML(f"<strong>{number}. {as_html(q['text'])}</strong>"), pick]
    return widgets.VBox([*rows, button, feedback])


def show_quiz(text, room=False, labels=None):
    """Show a quiz; return its answer form (None without ipywidgets).

    `room=True`, for a projector: only the questions marked "room: yes", and
    no answers until the instructor reveals them.
    `labels`: the quiz's own words in another language (keys of LABELS)."""
    labels = {**LABELS, **(labels or {})}
    questions = [q for q in read_quiz(text) if q["room"] or not room]
    if not questions:
        raise ValueError("no question to ask: in room mode, mark some 'room: yes'")
    display(static_quiz(questions, room, labels))
    try:
        import ipywidgets
    except ImportError:  # the answers are in the toggles above
        return None
    form = quiz_form(questions, ipywidgets, room, labels)
    if hasattr(form, "_repr_mimebundle_"):  # ipywidgets 8: a line for static pages
        bundle = form._repr_mimebundle_()
        bundle["text/plain"] = labels["live form"]
        display(bundle, raw=True)
    else:
        display(form)
    return form
