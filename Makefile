# `make book` builds the executed book; `make test` runs every check. Both work on a fresh clone.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
export PATH := $(abspath $(BIN)):$(PATH)
export PYTHONDONTWRITEBYTECODE := 1
export PIP_DISABLE_PIP_VERSION_CHECK := 1
# Notebooks executed at a time by `make notebooks` (pytest-xdist workers); docs/testing.md ("Step times") has the timings.
JOBS ?= 2
BOOK_CACHE := _build/.jupyter_cache
# The release the book teaches and is executed on (constraints.txt); torch-matrix.txt lists the others.
TAUGHT := $(shell sed -n 's/^torch==\([^ ]*\).*/\1/p' constraints.txt)
RUNS := _build/runs
STEPS := $(RUNS)/steps
# Each step of `make test` runs through tools/step_times.py, which records its seconds for the closing summary.
TIMED := $(PY) -m tools.step_times run $(STEPS)
# The one command that executes notebooks (tools/execute/command.py): nbval with the course's plugin
# (tools/execute/pytest_plugin.py, whose docstring has the table of its options), $(JOBS) notebooks at a time.
NOTEBOOK_RUN := -p tools.execute.pytest_plugin -p no:cacheprovider --nbval-lax \
	$(if $(filter-out 1,$(JOBS)),-n $(JOBS) --dist loadfile --no-loadscope-reorder)
# What `make notebooks` runs: every lesson of _toc.yml, or NOTEBOOKS=path/to/one.ipynb ...
LESSONS = $(or $(NOTEBOOKS),$$($(PY) -m tools.execute.command lessons))
# What the notebooks step reads: a change to any of these runs it again.
RUN_INPUTS := $(shell find notebooks tests/exercises tools -type f \( -name '*.ipynb' -o -name '*.py' -o -name '*.json' \) \
	-not -path '*/.ipynb_checkpoints/*' -not -path '*/__pycache__/*')
RUN_DONE := $(RUNS)/torch-$(TAUGHT)/run-1/.done
# Under `make test` (MAKELEVEL 1) the static checks come first; a target run alone does not wait for them.
STATIC_FIRST := $(if $(filter 1,$(MAKELEVEL)),static)
# ... and the tests that read the notebooks step's run (marked `reads_run`) wait for it (a target run alone does not).
AFTER_NOTEBOOKS := $(if $(filter 1,$(MAKELEVEL)),$(RUN_DONE))
# The newest release of the version matrix: the last release line of torch-matrix.txt.
NEWEST := $(shell sed -n 's/^\([0-9][0-9.a-z]*\).*/\1/p' torch-matrix.txt | tail -n 1)

.PHONY: run-again book test test-steps static content integration run-readers nbval lint editions editions-update unit typecheck notebooks exercises quiz browser matrix flaky status-records record-runs status stamp record-eigh workshop \
	student scan pdf published clean help lesson

help:
	@echo "make book    build the executed book into _build/html"
	@echo "make test    lint, unit tests, a type check, every notebook executed once (cells, exercises, records),"
	@echo "             the strict book build from that run, a browser check; a summary of each step's seconds"
	@echo "make notebooks  nbval over every lesson once: cells, exercise checks, run records, the book's cache (NOTEBOOKS=P: one)"
	@echo "make typecheck  type-check every notebook against the taught and the newest torch"
	@echo "make exercises  prove every exercise check against the stub and wrong answers (quick loop; EXERCISE=LABEL: one)"
	@echo "make editions  check the Chinese and Korean catalogs (locales/) against the English; editions-update merges"
	@echo "make quiz    write each lesson's quiz cells and instructors/quiz-room.md from quizzes/*.yml"
	@echo "make matrix  every notebook (cells and exercises) on each torch release of torch-matrix.txt"
	@echo "make nbval   nbval over every lesson of _toc.yml on one release (RELEASE=R, default the taught one)"
	@echo "make flaky   the matrix three times per release, notebooks that start processes 29 times (RELEASE=R: one)"
	@echo "make status-records  the matrix three times per release, then refresh the status page's records in results/runs"
	@echo "make record-runs  execute every notebook on this machine's accelerator and keep the outputs in results/"
	@echo "make status  print where each notebook has run, from results/runs"
	@echo "make stamp   copy tools/snippets/ into the notebooks' stamped cells"
	@echo "make record-eigh  record the eigh benchmark on this machine into results/"
	@echo "make workshop  regenerate the workshop schedules and the exercise index from the notebooks"
	@echo "make lesson CHAPTER=graphs NAME=my-lesson  a new lesson from the course's anatomy, in _toc.yml, pages refreshed"
	@echo "make student   write student notebooks (solutions removed, checks kept) to _build/student/"
	@echo "make pdf     the book and its Chinese and Korean editions as PDFs (_build/pdf/), from the same run, then their check"
	@echo "make published  after make test: the site, the PDFs, the executed cache and the branches' files in _build/published"
	@echo "make scan      scan this repository with the 2.12 upgrade scanner"
	@echo "make clean   remove _build (keeps .venv)"

# The virtual environment, rebuilt only when a requirements file changes.
# torch is pinned by constraints.txt to the release the book teaches.
$(VENV)/.book-deps: requirements.txt constraints.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt -c constraints.txt
	@touch $@

$(VENV)/.test-deps: $(VENV)/.book-deps requirements-test.txt
	$(PY) -m pip install --quiet -r requirements-test.txt -c constraints.txt
	@touch $@

# The executed book: every lesson through nbval and the course's checks (`notebooks`), then the strict build that
# renders that run from Jupyter Book's cache, then each translated edition rendered from the same run into
# _build/html/<language>/ (tools/editions/). Every build fails if it executed a notebook (_ext/executed_nothing.py).
# --all: Sphinx re-reads only changed sources, and a notebook's new outputs in the cache are no change to it.
book: $(RUN_DONE) $(VENV)/.book-deps
	$(TIMED) book -- $(BIN)/jupyter-book build . --all --warningiserror --nitpick --keep-going
	$(TIMED) editions-build -- $(PY) -m tools.editions build --jobs $(JOBS)

# `make test` in the order the Makefile shows (`make -n test`): the cheap static checks first (they fail within a
# minute), then two at a time: the notebooks beside the type check, the unit tests and then the integration tests;
# after the notebooks, the book, the editions and the browser check, and the tests that read the notebooks' run,
# beside the integration tests. Each step's seconds go to $(STEPS); the summary closes the output and goes to
# $(RUNS)/make-test-steps.json. The newest release's venv (typecheck-newest's) is an install, like .venv's: it is made
# or checked before the timed steps. The steps share the machine, so OpenMP's idle threads (torch's CPU kernels in the
# notebooks and the tests) sleep instead of spinning (OMP_WAIT_POLICY=PASSIVE): measured on the 2-core machine, the
# notebooks step alone took 136 s and 248 s of CPU instead of 152 s and 280 s, with the same results
# (docs/testing.md, "Step times"). A learner's kernel, the matrix and recorded runs keep OpenMP's default.
test: $(VENV)/.test-deps
	$(PY) -m tools.execute.matrix venv $(NEWEST) > /dev/null
	rm -rf $(STEPS) && mkdir -p $(STEPS)
	OMP_WAIT_POLICY=PASSIVE $(MAKE) --no-print-directory --jobs=2 --output-sync=target test-steps RUN_AGAIN=1 \
		|| echo "$$?" > $(STEPS)/make.failed
	$(PY) -m tools.step_times summary $(STEPS) --write $(RUNS)/make-test-steps.json

test-steps: static notebooks typecheck book unit integration run-readers browser

# The checks that read files only: the content suite first, then lint and the catalogs.
static: content lint editions

# tests/content/: every lesson's conventions, metadata, stamped cells and size; the table of contents; the quiz cells,
# the quiz room page, the workshop pages and Colab runtimes fresh. Each check once: this is the only place they run.
content: $(VENV)/.test-deps
	$(TIMED) content -- $(PY) -m pytest tests/content -x -q -p no:cacheprovider

# zizmor audits the workflows and .github/dependabot.yml offline (no GitHub API): an action not pinned to a commit,
# a `${{ }}` pasted into a script, a token with more scopes than its job needs... Any finding fails, unless its line
# carries `# zizmor: ignore[<audit>]` and a reason (tests/test_workflows.py).
lint: $(VENV)/.test-deps
	$(TIMED) lint -- $(BIN)/ruff check tools tests notebooks torch_upgrade_scan _ext
	$(TIMED) zizmor -- $(BIN)/zizmor --offline --no-progress .github

# Every translated message keeps its English's markup, numbers and glossary terms (tools/editions/); an untranslated
# or fuzzy one shows in English, marked on its page (`check --complete`, weekly, fails on them). After an English
# change: `make editions-update`, then translate.
editions: $(VENV)/.book-deps
	$(TIMED) editions -- $(PY) -m tools.editions check

editions-update: $(VENV)/.book-deps
	$(PY) -m tools.editions update

# The fast loop: tools and conventions on small inputs, no kernel, no Sphinx build (well under a minute).
unit: $(VENV)/.test-deps | $(STATIC_FIRST)
	$(TIMED) unit -- $(PY) -m pytest tests --ignore=tests/browser --ignore=tests/content -q -m "not integration"

# Tests that start kernels, build books or run mypy on fixtures (marked `integration`), one file at a time. Under
# `make test` they start after the type check and the unit tests, beside the notebooks (whose run none of them reads),
# and go on beside the book and the browser check; run-readers, the few that read that run, follow the notebooks.
integration: $(VENV)/.test-deps | $(STATIC_FIRST)
	$(TIMED) integration -- $(PY) -m pytest tests --ignore=tests/browser --ignore=tests/content -q \
		-m "integration and not reads_run"

# Only the files that mark a test reads_run are collected (collecting every test file took 6 of its 8 s).
run-readers: $(VENV)/.test-deps | $(STATIC_FIRST) $(AFTER_NOTEBOOKS)
	$(TIMED) run-readers -- $(PY) -m pytest $$(grep -l 'mark.reads_run' tests/test_*.py) -q -m reads_run

# Every exercise's check against the student stub and each wrong answer under tests/exercises/<label>/ (must fail
# with a message) and its solution (must pass), each notebook stopping after its last check: the authors' quick loop,
# the one command with --exercises-only (EXERCISE=LABEL: --exercise LABEL). `make notebooks` proves the same inside
# its one run of each lesson.
exercises: $(VENV)/.test-deps
	$(PY) -m pytest $(NOTEBOOK_RUN) -q $(if $(EXERCISE),--exercise $(EXERCISE),--exercises-only) $(LESSONS)

# Every notebook's code and tools/snippets/, accelerator branches included, against the annotations
# of the taught torch (.venv) and of the newest release (tools/checks/typecheck.py; settings in mypy.ini).
typecheck: $(VENV)/.test-deps | $(STATIC_FIRST)
	$(TIMED) typecheck -- $(PY) -m tools.checks.typecheck --python $(PY)
	$(TIMED) typecheck-newest -- $(PY) -m tools.checks.typecheck --python "$$($(PY) -m tools.execute.matrix venv $(NEWEST) | tail -n 1)"

# Every lesson of _toc.yml executed once by nbval ($(JOBS) at a time): every cell runs (one test each), the deprecation
# gate, each exercise's check against the stub and the wrong answers (one test each) and the solution; run records go to
# $(RUNS)/torch-<release>/run-1 (tools/schemas/run-record.schema.json), and each passing notebook into the book's
# cache, from which the book is built without executing it again. Done again only when a notebook, a wrong answer or
# a tool changed ($(RUN_DONE)); `make test` always runs it. NOTEBOOKS=path runs those only (and leaves $(RUN_DONE)).
notebooks: $(RUN_DONE)

# RUN_AGAIN=1 (what `make test` passes) runs it even when nothing changed, and `make -n test` shows that it will; so
# does NOTEBOOKS=path (the notebooks named always run).
$(RUN_DONE): $(VENV)/.test-deps $(RUN_INPUTS) $(if $(RUN_AGAIN)$(NOTEBOOKS),run-again) | $(STATIC_FIRST)
	$(if $(NOTEBOOKS),,rm -f $@)
	$(TIMED) notebooks -- $(PY) -m pytest $(NOTEBOOK_RUN) -q \
		--run-records $(RUNS)/torch-$(TAUGHT)/run-1 --book-cache $(BOOK_CACHE) \
		--notebooks-summary $(STEPS)/notebooks.summary.json \
		$(if $(STATIC_FIRST),--run-command "make test" --steps-summary $(RUNS)/make-test-steps.json,--run-command "make book") \
		$(LESSONS)
	$(if $(NOTEBOOKS),,touch $@)

run-again:

# The other releases of torch-matrix.txt, each in a venv of its own (reused; see tools/execute/matrix.py).
# The taught release is skipped when `make test` has just recorded it for the current sources.
matrix: $(VENV)/.test-deps
	$(PY) -m tools.execute.matrix run --skip-fresh

# Every notebook 3 times per release, the notebooks that start processes FLAKY_RUNS times in all, the extra runs two at
# a time beside each other for load: enough to see a one-in-ten failure with 95% probability
# (tools.execute.matrix.repeats_to_see(0.1, 0.95)). RELEASE=2.13.0 runs one release.
FLAKY_RUNS := 29
flaky: $(VENV)/.test-deps
	$(PY) -m tools.execute.matrix run --repeat 3 --repeat-multi-process $(FLAKY_RUNS) --command-name "make flaky" \
		$(if $(RELEASE),--releases $(RELEASE))

# The one command on one release of the matrix (RELEASE=2.13.0; default: the taught one), one notebook at a time and
# no records, as the weekly workflow runs it on each.
nbval: $(VENV)/.test-deps
	$(PY) -m tools.execute.matrix nbval $(or $(RELEASE),$(TAUGHT))

status-records: $(VENV)/.test-deps
	$(PY) -m tools.execute.matrix status-records

record-runs: $(VENV)/.test-deps
	$(PY) -m tools.execute.matrix record-runs

status: $(VENV)/.book-deps
	$(PY) -m tools.records status

browser: book $(VENV)/.test-deps
	$(TIMED) browser -- $(PY) -m pytest tests/browser -q

stamp: $(VENV)/.book-deps
	$(PY) -m tools.author.stamp

record-eigh: $(VENV)/.book-deps
	$(PY) -m tools.records.record_eigh

quiz: $(VENV)/.book-deps
	$(PY) -m tools.author.quiz attach
	$(PY) -m tools.author.quiz room

workshop: $(VENV)/.book-deps
	$(PY) -m tools.workshop pages

# The book and each edition as one PDF each (tools/editions/pdf.py): the single-page build from the notebooks step's
# run (executing nothing, which _ext/executed_nothing.py proves), printed by headless Chromium with an outline; then
# tests/test_pdf.py on them.
pdf: $(RUN_DONE) $(VENV)/.test-deps
	$(PY) -m tools.editions.pdf --editions
	$(PY) -m pytest tests/test_pdf.py -q -p no:cacheprovider

# A new lesson (tools/workshop/lesson_template.py: notebook, wrong answers, _toc.yml entry), then the pages made from
# the notebooks refreshed.
lesson: $(VENV)/.book-deps
	$(PY) -m tools.workshop.lesson_template --chapter "$(CHAPTER)" --name "$(NAME)"

# What a push to main publishes, all from the run `make test` checked (nothing executes: the PDFs and the editions'
# notebooks render from its cache): the site with the editions and the PDFs, the executed cache, and the files of the
# student and editions branches, in one folder that CI uploads as one artifact (.github/workflows/pull-request.yml)
# and .github/workflows/publish.yml deploys. Run after `make test` (its book is the site).
PUBLISHED := _build/published
published: pdf
	@test -f _build/html/index.html || { echo "published: no _build/html; run make test (or make book) first"; exit 1; }
	rm -rf $(PUBLISHED) && mkdir -p $(PUBLISHED)/site/pdf
	cp -r _build/html/. $(PUBLISHED)/site/
	cp _build/pdf/*.pdf $(PUBLISHED)/site/pdf/
	cp -r $(BOOK_CACHE) $(PUBLISHED)/jupyter-cache
	$(PY) -m tools.workshop student $(PUBLISHED)/student-branch --branch
	$(PY) -m tools.editions notebooks $(PUBLISHED)/editions-branch
	cp -r binder $(PUBLISHED)/editions-branch/

student: $(VENV)/.book-deps
	$(PY) -m tools.workshop student $(if $(TRACK),--track $(TRACK)) $(if $(DAY),--day $(DAY))

scan: $(VENV)/.book-deps
	$(PY) -m torch_upgrade_scan --exclude 'tests/fixtures/*' .

clean:
	rm -rf _build
