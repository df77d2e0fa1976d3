"""Reading and writing an edition's catalog (tools/editions/catalogs.py) keeps what translators need, and nothing
else: a fuzzy message's previous English survives every round trip, a translated message carries none."""

from __future__ import annotations

from pathlib import Path

from babel.messages.catalog import Catalog

from tools.course import ROOT
from tools.editions.catalogs import LOCALES, read_catalog, write_catalog

PREVIOUS = 'On a GPU, the worker below "replays" the steps in a fresh process and reports the memory after each one'


def test_round_trips_keep_a_fuzzy_messages_previous_english_and_drop_a_translated_ones(tmp_path: Path) -> None:
    catalog = Catalog(locale="ko")
    catalog.add("The worker runs the steps again.", "워커가 스텝을 다시 실행합니다.", flags=["fuzzy"],
                previous_id=[PREVIOUS])
    # what babel made of a previous English before: a translator comment, left behind once translated again
    catalog.add("Translated.", "번역됨.", user_comments=['| msgid "Translated before."', "a translator's note"])
    path = tmp_path / "page.po"
    write_catalog(path, catalog)
    for _ in range(3):
        write_catalog(path, read_catalog(path, "ko"))
    fuzzy, translated = (read_catalog(path, "ko")[text] for text in ("The worker runs the steps again.", "Translated."))
    assert (fuzzy.fuzzy, fuzzy.previous_id, fuzzy.user_comments) == (True, [PREVIOUS], [])
    assert (translated.previous_id, translated.user_comments) == ([], ["a translator's note"])
    assert "\n# | " not in path.read_text(encoding="utf-8")


def test_the_committed_catalogs_hold_no_previous_english_as_comments() -> None:
    found = [f"{path.relative_to(ROOT)}:{number}" for path in sorted((ROOT / LOCALES).rglob("*.po"))
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if line.startswith("# | ")]
    assert not found, f"a previous English read back as a comment (python -m tools.editions update clears it): {found}"
