"""No module in orkas_nb over 400 lines (issue 14; the developers' guide: a sign to split).

Lines are physical lines, as ``wc -l`` counts them. Every ``.py`` file counts, data tables too:
the fitted tables (``core/token_tables.py``, the guard's lexicons) fit today, and a generated
table that outgrows a module belongs in a data file its generator writes, not in a split module.
"""

from __future__ import annotations

from tests.test_layers import PACKAGE

LIMIT = 400

# Modules over the limit that others are shrinking right now (issue 14). The test fails when a
# module not listed here is over, and when a listed one is no longer over (or no longer exists):
# then take it out, so the list only ever shrinks.
KNOWN_OVER: set[str] = set()


def lines_of(text: str) -> int:
    return text.count("\n") + (not text.endswith("\n") and text != "")


def modules_over(limit: int = LIMIT) -> dict[str, int]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        n = lines_of(path.read_text(encoding="utf-8"))
        if n > limit:
            found[path.relative_to(PACKAGE.parent).as_posix()] = n
    return found


def test_no_module_over_the_limit() -> None:
    over = modules_over()
    new = {path: n for path, n in over.items() if path not in KNOWN_OVER}
    assert new == {}, f"modules over {LIMIT} lines (split them by responsibility): {new}"
    shrunk = sorted(KNOWN_OVER - set(over))
    assert shrunk == [], f"{shrunk} are at most {LIMIT} lines now: take them out of KNOWN_OVER"


def test_lines_are_counted_as_wc_does() -> None:
    assert [lines_of(t) for t in ("", "a", "a\n", "a\nb", "a\n\n")] == [0, 1, 1, 2, 2]
