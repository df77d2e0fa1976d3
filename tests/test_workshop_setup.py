"""The workshop's setup kit holds together: every red row of the pre-flight links to a troubleshooting entry that
exists, every page that says what to do before the day says the same thing (run the pre-flight), the GPU lab's
image installs the course's pinned torch on a matching CUDA base, and the instructor pages are in the book."""

from __future__ import annotations

import ast
import re
import sys
from urllib.parse import urlparse

import pytest

from tools.course import ROOT, cell_source, read_notebook, repository_url, toc_files
from tools.workshop.rooms import tables
from tools.workshop.tracks import tracks

PREFLIGHT = ROOT / "notebooks" / "workshop" / "preflight.ipynb"
TROUBLESHOOTING = ROOT / "chapters" / "troubleshooting.md"
DOCKERFILE = ROOT / "lab" / "Dockerfile"
DOCKERIGNORE = ROOT / "lab" / "Dockerfile.dockerignore"
CONSTRAINTS = ROOT / "constraints.txt"
INSTRUCTOR_PAGES = ("dry-run", "collaborative-document", "mid-day-check", "gpu-lab")

# A MyST target: `(label)=` on its own line, naming the heading under it.
TARGET = re.compile(r"^\((?P<label>[^)\s]+)\)=[ \t]*\n(?:[ \t]*\n)*#{1,6} ", re.MULTILINE)
LABEL_CHARACTERS = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


# ---- the pre-flight's rows and the troubleshooting page -------------------------------------------------------------

def entry_labels(markdown: str) -> set[str]:
    """The explicit targets of a MyST page that stand on a heading (a link to one lands on that section)."""
    return {match["label"] for match in TARGET.finditer(markdown)}


def string_values(expression: ast.expr) -> list[str]:
    """The strings an expression can evaluate to: a literal, or the branches of `a if condition else b`."""
    if isinstance(expression, ast.Constant) and isinstance(expression.value, str):
        return [expression.value]
    if isinstance(expression, ast.IfExp):
        return string_values(expression.body) + string_values(expression.orelse)
    return []


def row_links(source: str) -> list[tuple[str, list[str]]]:
    """For each `Check(...)` a code cell builds: its status as written, and the labels its `see` can take.

    A status that is not a literal ("FAIL" or a variable) is a row that can be red; `see` may be an expression
    (`"a" if x else "b"`), or a variable the cell assigns: each string it can evaluate to is a label.
    """
    tree = ast.parse(source)
    assigned: dict[str, list[ast.expr]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    assigned.setdefault(target.id, []).append(node.value)
    rows = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Check"):
            continue
        keywords = {keyword.arg: keyword.value for keyword in node.keywords}
        status = node.args[1] if len(node.args) > 1 else keywords.get("status")
        see = node.args[5] if len(node.args) > 5 else keywords.get("see")
        written = status.value if isinstance(status, ast.Constant) else ast.unparse(status) if status else ""
        values = assigned.get(see.id, []) if isinstance(see, ast.Name) else [] if see is None else [see]
        labels = [label for value in values for label in string_values(value)]
        rows.append((written, labels))
    return rows


def preflight_rows() -> list[tuple[str, list[str]]]:
    cells = read_notebook(PREFLIGHT)["cells"]
    return [row for cell in cells if cell["cell_type"] == "code" for row in row_links(cell_source(cell))]


def broken_links(rows: list[tuple[str, list[str]]], markdown: str) -> list[str]:
    """What is wrong with the rows' links: a row that can be red without one, or a label with no entry."""
    labels = entry_labels(markdown)
    problems = []
    for status, see in rows:
        if status not in ("ok", "warn") and not see:
            problems.append(f"a row with status {status!r} has no `see` link")
        problems += [f"`see={label!r}`: no `({label})=` heading in the page" for label in see if label not in labels]
    return problems


def test_every_red_row_links_to_an_entry_of_the_troubleshooting_page() -> None:
    rows = preflight_rows()
    red = [row for row in rows if row[0] not in ("ok", "warn")]
    # Python, torch, packages, driver, memory, disk, Inductor, torchrun, a broken check: nine ways to be red.
    assert len(red) >= 8, f"found only {len(red)} rows that can be red: is the pre-flight read right? {rows}"
    assert broken_links(rows, TROUBLESHOOTING.read_text()) == []


def test_a_removed_entry_or_a_row_without_a_link_is_reported() -> None:
    page = "(low-disk)=\n## Not enough disk\n\n(no-compiler)=\n\n## No compiler\n\n(loose-label)=\nText, no heading.\n"
    assert entry_labels(page) == {"low-disk", "no-compiler"}
    source = (
        'Check("disk", "FAIL", found, fix, see="low-disk")\n'
        'see = "no-compiler" if device == "cpu" else "inductor-on-accelerator"\n'
        'Check("C++", "FAIL", found, fix, see=see)\n'
        'Check("port", status, found, fix)\n'
        'Check("gpu", "warn", found, fix, see="loose-label")\n'
        'Check("ok row", "ok", found)\n'
    )
    assert broken_links(row_links(source), page) == [
        "`see='inductor-on-accelerator'`: no `(inductor-on-accelerator)=` heading in the page",
        "a row with status 'status' has no `see` link",
        "`see='loose-label'`: no `(loose-label)=` heading in the page",
    ]


def test_labels_are_their_own_html_anchors() -> None:
    """Sphinx writes a label's id as lowercase words joined by hyphens: a label already in that form is the anchor
    the pre-flight's link ends with."""
    labels = {label for _, see in preflight_rows() for label in see}
    assert labels, "the pre-flight links no troubleshooting entry"
    assert [label for label in labels if not LABEL_CHARACTERS.fullmatch(label)] == []


def test_the_preflight_links_to_the_published_troubleshooting_page() -> None:
    """The link in the pre-flight's table is the book's address, derived from the repository URL in _config.yml
    (https://github.com/OWNER/NAME is published at https://OWNER.github.io/NAME/), so a fork that changes the
    URL there is told to change it here too."""
    owner, name = urlparse(repository_url()).path.strip("/").split("/")[:2]
    expected = f"https://{owner}.github.io/{name}/chapters/troubleshooting.html"
    sources = "\n".join(cell_source(cell) for cell in read_notebook(PREFLIGHT)["cells"])
    assert re.findall(r'HELP = "([^"]+)"', sources) == [expected]


# ---- one instruction for before the day -----------------------------------------------------------------------------

BEFORE_THE_DAY = re.compile(r"before the (day|workshop)|the day before|weeks? (ahead|before)", re.IGNORECASE)
NOTEBOOK_REFERENCE = re.compile(r"\{doc\}`(?:[^`<]*<)?(?:\.\./)*(notebooks/[^`>]+)>?`")
PAGES_THAT_SAY_IT = ("chapters/workshop-setup.md", "chapters/how-to-use.md", "chapters/workshop.md")


def before_the_day_notebooks(markdown: str) -> list[list[str]]:
    """For each paragraph that speaks of the time before the workshop, the notebooks it names."""
    return [NOTEBOOK_REFERENCE.findall(paragraph) for paragraph in re.split(r"\n\s*\n", markdown)
            if BEFORE_THE_DAY.search(paragraph)]


def test_before_the_day_every_page_says_run_the_preflight() -> None:
    """The pre-flight is the one notebook to run before the day; a half day's walk-through given as reading (a page
    to read, nothing to run) is the one other page named before the day."""
    pages = [ROOT / "index.md", *sorted((ROOT / "chapters").glob("*.md")), *sorted((ROOT / "instructors").glob("*.md"))]
    reading = {lesson.entry for track in tracks() for lesson in track.reading}
    others = {
        f"{page.relative_to(ROOT)}: {notebook}"
        for page in pages for named in before_the_day_notebooks(page.read_text())
        for notebook in named if notebook != tables().preflight and notebook not in reading
    }
    assert others == set(), "a page asks for another notebook before the day than the pre-flight"
    for page in PAGES_THAT_SAY_IT:
        named = before_the_day_notebooks((ROOT / page).read_text())
        assert [tables().preflight] in named, f"{page} does not tell participants to run the pre-flight before the day"


def test_a_page_that_names_another_notebook_before_the_day_is_caught() -> None:
    old_how_to_use = ("so participants know when they are done. Ask participants to run\n"
                      "{doc}`../notebooks/getting-started/know-your-accelerator` before the day: it reports")
    assert before_the_day_notebooks(old_how_to_use) == [["notebooks/getting-started/know-your-accelerator"]]
    assert before_the_day_notebooks("Run {doc}`the check <../notebooks/workshop/preflight>` a week ahead.") == [
        [tables().preflight]]


# ---- the GPU lab ----------------------------------------------------------------------------------------------------

def torch_pin() -> str:
    pins = re.findall(r"^torch==(\S+)$", CONSTRAINTS.read_text(), re.MULTILINE)
    assert len(pins) == 1, f"constraints.txt should pin torch once; found {pins}"
    return pins[0]


def dockerfile_instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) per instruction, continuation lines joined and comments dropped."""
    joined = re.sub(r"\\\n", " ", "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#")))
    return [(line.split(maxsplit=1)[0].upper(), line.split(maxsplit=1)[1]) for line in joined.splitlines()
            if line.strip()]


def test_the_lab_installs_the_course_requirements_under_its_constraints() -> None:
    instructions = dockerfile_instructions(DOCKERFILE.read_text())
    copied = [arguments.split() for name, arguments in instructions if name == "COPY"]
    assert ["requirements.txt", "constraints.txt", "/opt/course/"] in copied
    installs = [arguments for name, arguments in instructions if name == "RUN" and "pip install" in arguments]
    assert len(installs) == 1 and re.search(r"-r \S*requirements\.txt", installs[0]), installs
    assert re.search(r"-c \S*constraints\.txt", installs[0]), "the lab must install under constraints.txt"
    ignored = DOCKERIGNORE.read_text().splitlines()
    for sources in copied:
        kept = [source for source in sources[:-1] if not source.startswith("--") and f"!{source}" not in ignored]
        assert kept == [], f"lab/Dockerfile.dockerignore leaves {kept} out of the build context"


def test_the_lab_base_image_is_the_cuda_release_of_its_torch_wheel() -> None:
    text = DOCKERFILE.read_text()
    base = re.search(r"^ARG BASE=nvidia/cuda:(\d+)\.(\d+)\.\d+-base-ubuntu24\.04$", text, re.MULTILINE)
    cuda = re.search(r"^ARG CUDA=(\d+)\.(\d+)$", text, re.MULTILINE)
    assert base and cuda, "lab/Dockerfile should declare ARG BASE=nvidia/cuda:X.Y.Z-base-... and ARG CUDA=X.Y"
    assert base.groups() == cuda.groups(), f"base image CUDA {base.groups()} but torch wheel CUDA {cuda.groups()}"
    assert 'download.pytorch.org/whl/cu$(echo "$CUDA" | tr -d .)' in text, "the wheel index must follow CUDA"
    assert '= "$CUDA"' in text, "the build must stop when torch is built for another CUDA"


@pytest.mark.parametrize("page", ["lab/Dockerfile", "lab/README.md", "instructors/gpu-lab.md"])
def test_the_lab_names_the_pinned_torch(page: str) -> None:
    named = set(re.findall(r"(?:torch|PyTorch)[ -](\d+\.\d+\.\d+)", (ROOT / page).read_text()))
    assert named == {torch_pin()}, f"{page} names torch {sorted(named)}; constraints.txt pins {torch_pin()}"


# ---- the instructor pages -------------------------------------------------------------------------------------------

def test_the_instructor_pages_are_in_the_book() -> None:
    listed = set(toc_files())
    on_disk = {f"instructors/{page.stem}" for page in (ROOT / "instructors").glob("*.md")}
    assert {f"instructors/{page}" for page in INSTRUCTOR_PAGES} <= on_disk
    assert sorted(on_disk - listed) == [], "pages under instructors/ that _toc.yml leaves out of the book"


def test_the_dry_run_checklist_has_a_section_per_room() -> None:
    headings = re.findall(r"^## (.+)$", (ROOT / "instructors" / "dry-run.md").read_text(), re.MULTILINE)
    assert [room.title for room in tables().rooms if room.title not in headings] == []


# ---- one torch for the room -----------------------------------------------------------------------------------------

SETUP_PAGES = ("chapters/workshop-setup.md", "chapters/how-to-use.md", "chapters/troubleshooting.md")
TORCH_INSTALL = re.compile(r"pip install[^`\n]*?\"torch(?P<spec>[^\"]*)\"")


def torch_install_specs(text: str) -> list[str]:
    """The version specifier of every `pip install ... "torch..."` line in a page or a notebook's sources."""
    return [match["spec"] for match in TORCH_INSTALL.finditer(text)]


def test_every_setup_line_installs_the_taught_release() -> None:
    """A workshop room runs the release the book's outputs come from: every install line pins its minor release
    (constraints.txt), so `"torch>=2.12"` on one of these pages, which installs the newest release, fails here.
    The stamped setup cell is the book's, for any reader, and keeps its floor."""
    minor = ".".join(torch_pin().split(".")[:2])
    preflight = "\n".join(cell_source(cell) for cell in read_notebook(PREFLIGHT)["cells"]
                          if "stamp:setup" not in cell.get("metadata", {}).get("tags", []))
    texts = {page: (ROOT / page).read_text() for page in SETUP_PAGES} | {"the pre-flight": preflight}
    specs = {page: torch_install_specs(text) for page, text in texts.items()}
    # how-to-use's Colab section leaves the install to the notebook's first cell: it may have no line.
    assert all(found for page, found in specs.items() if page != "chapters/how-to-use.md"), (
        f"a page lost its install lines: {specs}")
    assert {page: [spec for spec in found if spec != f"=={minor}.*"] for page, found in specs.items()} == {
        page: [] for page in texts}


def test_an_unpinned_install_line_is_found() -> None:
    text = 'run `pip install "torch>=2.12" --index-url X` or\n`%pip install -q "torch==2.12.*"` then'
    assert torch_install_specs(text) == [">=2.12", "==2.12.*"]


# ---- the mid-day check ----------------------------------------------------------------------------------------------

MID_DAY_CHECK = ROOT / "instructors" / "mid-day-check.md"
SHARED_DOCUMENT = ROOT / "instructors" / "collaborative-document.md"


def section(markdown: str, heading: str) -> str:
    """The text under `heading` (a whole heading line) up to the next heading of any level."""
    found = re.search(rf"^{re.escape(heading)}\n", markdown, re.MULTILINE)
    assert found, f"no heading {heading!r}"
    start = found.end()
    following = re.search(r"^#{1,6} ", markdown[start:], re.MULTILINE)
    return markdown[start:start + following.start()] if following else markdown[start:]


def mid_day_questions(page: str) -> list[str]:
    """The numbered questions of the mid-day check page, without their bold markers."""
    return [line.replace("**", "") for line in re.findall(r"^\d+\. (.+)$", section(page, "## What to ask"),
                                                            re.MULTILINE)]


def shared_document_questions(page: str) -> list[str]:
    """The bullets of the template's mid-day section."""
    return re.findall(r"^- (.+)$", section(page, "## Mid-day check"), re.MULTILINE)


def test_the_shared_document_asks_the_questions_of_the_mid_day_check() -> None:
    """Fails when one page changes, adds or drops a question and the other does not."""
    questions = mid_day_questions(MID_DAY_CHECK.read_text())
    assert len(questions) == 5, questions
    assert shared_document_questions(SHARED_DOCUMENT.read_text()) == questions


def test_a_question_asked_in_one_page_only_is_found() -> None:
    check = "# Check\n\n## What to ask\n\n1. **Clear?** (a word)\n2. **Pace?**\n\n## Then\n\n1. not a question\n"
    document = "## Mid-day check\n\n(fill in)\n\n- Clear? (a word)\n- Pace, too fast?\n\n## End\n\n- note\n"
    assert mid_day_questions(check) == ["Clear? (a word)", "Pace?"]
    assert shared_document_questions(document) == ["Clear? (a word)", "Pace, too fast?"]


def test_the_lab_carries_the_days_student_copies() -> None:
    """The image copies the student copies `make student TRACK=... DAY=...` writes, and says how to write them."""
    copied = [arguments.split() for name, arguments in dockerfile_instructions(DOCKERFILE.read_text())
              if name == "COPY"]
    assert ["--chown=learner", "_build/student/", "/home/learner/course/student/"] in copied
    for page in (DOCKERFILE, ROOT / "lab" / "README.md"):
        assert re.search(r"make student TRACK=\w+ DAY=(half|full)", page.read_text()), page


# ---- what the pre-flight asks of a day ------------------------------------------------------------------------------

def checks_run(day: str) -> list[str]:
    """The checks the pre-flight's result cell runs with its DAY line set to `day`, each check a stub."""
    (cell,) = [cell_source(c) for c in read_notebook(PREFLIGHT)["cells"] if "CHECKS = [" in cell_source(c)]
    names = ["check_python", "check_torch", "check_packages", "check_scanner", "check_device", "check_memory",
             "check_disk", "check_inductor", "check_torchrun"]
    namespace = {name: name for name in names} | {
        "here": type("Device", (), {"type": "cpu"})(), "run_check": lambda check: check,
        "result_table": lambda rows: (rows, None)}
    exec(re.sub(r'^DAY = "\w+"', f'DAY = "{day}"', cell, count=1, flags=re.MULTILINE), namespace)
    return list(namespace["table"])


def test_only_a_full_day_asks_for_torchrun() -> None:
    """A half day starts no two-process job, so its pre-flight leaves the torchrun row out (it failed on DAY "half"
    before: the cell ran every check whatever the day)."""
    assert "check_torchrun" in checks_run("full")
    assert checks_run("half") == [name for name in checks_run("full") if name != "check_torchrun"]


def test_the_inductor_row_is_never_red() -> None:
    """No track lesson needs a C++ compiler: the Inductor row is amber without one, and not required."""
    (source,) = [cell_source(c) for c in read_notebook(PREFLIGHT)["cells"] if "def check_inductor" in cell_source(c)]
    calls = [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Name) and node.func.id == "Check"]
    statuses = {call.args[1].value for call in calls if isinstance(call.args[1], ast.Constant)}
    assert len(statuses) == len(calls), "every row's status is a literal"
    assert statuses == {"ok", "warn"}
    assert "required=True" not in source and ", True" not in source


def test_the_rooms_say_how_to_keep_a_mac_on_the_cpu() -> None:
    """COURSE_DEVICE=cpu, which the setup cell reads, is set for Jupyter on macOS and on Windows (both shells) in the
    setup page's section, and the CPU room's dry run and the notes (the CPU room, the Apple room's fallback) send
    there; before issue 46 only the README and the setup cell named it."""
    assert 'os.environ.get("COURSE_DEVICE") == "cpu"' in (ROOT / "tools" / "snippets" / "setup.py").read_text()
    setup = (ROOT / "chapters" / "workshop-setup.md").read_text()
    section = setup.split("(course-device)=", 1)[1].split("\n## ", 2)[1]
    for line in ("COURSE_DEVICE=cpu jupyter lab", "set COURSE_DEVICE=cpu", '$env:COURSE_DEVICE = "cpu"',
                 "%env COURSE_DEVICE=cpu"):
        assert line in section, f"the setup page's COURSE_DEVICE section lacks {line!r}"
    notes = (ROOT / "instructors" / "index.md").read_text()
    mps = notes.split("## Apple silicon (MPS)", 1)[1].split("\n## ", 1)[0]
    assert "{ref}`course-device`" in mps and "{ref}`course-device`" in notes.split("## Know your accelerator")[0]
    assert "COURSE_DEVICE=cpu" in (ROOT / "instructors" / "dry-run.md").read_text().split("## CPU-only laptops")[1]


# ---- what the lessons import is what the setup installs ------------------------------------------------------------

SETUP = ROOT / "chapters" / "workshop-setup.md"
# Modules a lesson imports only where they are installed, each behind a guard that says what it skips without them.
GUARDED = {"cupy": "batched-eigh's GPU comparison", "cuda": "cuda-bindings, on a CUDA machine only",
           "torchcomms": "upgrading-to-2-12 says that it is missing", "psutil": "torchrun's helper falls back to os"}
# What the environment brings without a line of its own: the kernel's IPython (with jupyterlab), and torch.
BROUGHT = {"IPython", "torch"}


def lesson_imports() -> dict[str, set[str]]:
    """Each top-level module a workshop lesson's code cells import (stdlib aside), with the lessons importing it."""
    entries = {tables().preflight} | {
        entry for track in tracks() for slot in track.slots if slot.lesson
        for entry in (tuple(p.entry for p in slot.lesson.parallel) or (slot.lesson.entry,))}
    found: dict[str, set[str]] = {}
    for entry in sorted(entries):
        for cell in read_notebook(ROOT / f"{entry}.ipynb")["cells"]:
            if cell.get("cell_type") != "code" or cell_source(cell).startswith("%%writefile"):
                continue  # a script the lesson writes imports the lesson's own modules (join.py)
            code = re.sub(r"^(\s*)[%!].*$", r"\1pass", cell_source(cell), flags=re.MULTILINE)  # IPython's magics
            for node in ast.walk(ast.parse(code)):
                names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else [
                    node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else []
                for module in {name.split(".")[0] for name in names} - set(sys.stdlib_module_names):
                    found.setdefault(module, set()).add(entry)
    return found


def setup_pip_modules() -> set[str]:
    """The import names the setup page's `pip install` lines install (a wheel file by its name before `-`)."""
    names = set()
    for line in SETUP.read_text(encoding="utf-8").splitlines():
        if not line.startswith("pip install"):
            continue
        for word in line.split("#")[0].split()[2:]:
            word = word.strip('"').split("/")[-1]
            if word.startswith("-") or word.startswith("http"):
                continue
            names.add(re.split(r"[<>=!~\-]", word, maxsplit=1)[0].replace("-", "_"))
    return names


def preflight_modules() -> set[str]:
    """The packages the pre-flight's `PACKAGES` checks, and what its checks import (the scanner: scanner_row)."""
    (cell,) = [cell_source(c) for c in read_notebook(PREFLIGHT)["cells"] if "PACKAGES = {" in cell_source(c)]
    tree = ast.parse(cell)
    (packages,) = [node.value for node in tree.body if isinstance(node, ast.Assign)
                   and any(isinstance(t, ast.Name) and t.id == "PACKAGES" for t in node.targets)]
    assert isinstance(packages, ast.Dict)
    named = {key.value for key in packages.keys if isinstance(key, ast.Constant)}
    checks = [ast.parse(cell_source(c)) for c in read_notebook(PREFLIGHT)["cells"]
              if c["cell_type"] == "code" and ("def check_" in cell_source(c) or "def scanner_row" in cell_source(c))]
    imported = {alias.name for check in checks for node in ast.walk(check) if isinstance(node, ast.Import)
                for alias in node.names}
    return named | (imported - set(sys.stdlib_module_names) - {"torch"})


def test_the_setup_installs_what_the_lessons_import() -> None:
    """Every module a lesson of a track imports (unguarded) is in the setup page's pip lines, venv and conda alike,
    and in the pre-flight's checks (threadpoolctl, which batched-eigh's timing imports, was in neither)."""
    needed = {module: entries for module, entries in lesson_imports().items()
              if module not in GUARDED and module not in BROUGHT}
    assert "threadpoolctl" in needed and "torch_upgrade_scan" in needed, sorted(needed)
    pip = setup_pip_modules()
    missing = {module: sorted(entries) for module, entries in needed.items() if module not in pip}
    assert not missing, f"{SETUP.name}: no pip line installs {missing}"
    blocks = [block for block in re.findall(r"```bash\n(.*?)```", SETUP.read_text(encoding="utf-8"), re.DOTALL)
              if "pip install" in block and "numpy" in block]
    assert len(blocks) == 2, "the venv and the conda sections each have their pip lines"
    for block in blocks:
        assert all(module in block.replace("-", "_") for module in needed if module != "torch"), block
    unchecked = sorted(set(needed) - preflight_modules())
    assert not unchecked, f"the pre-flight checks none of {unchecked}"
