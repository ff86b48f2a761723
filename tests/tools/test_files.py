"""File tools: character ranges, line numbers, documents, binary refusal, consent for secrets,
read-before-write, the stale error, deliverables, and the TOCTOU swap."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from orkas_nb.harness.approval import Decision

from .conftest import CANARIES, Recorder


async def test_read_ranges_and_line_numbers(world, make_caller) -> None:
    call = make_caller()
    (world.ws / "long.txt").write_text("".join(f"line {i}\n" for i in range(1, 101)))
    ok, text, _ = await call("read_file", path="long.txt", offset=0, limit=14)
    assert ok and text.startswith("line 1\nline 2\n")
    assert "[characters 0-14 of 792; read on with offset=14]" in text
    ok, text, _ = await call("read_file", path="long.txt", offset=14, limit=14, line_numbers=True)
    assert text.splitlines()[:2] == ["     3\tline 3", "     4\tline 4"]
    ok, text, _ = await call("read_file", path="long.txt", offset=5000)
    assert "past the end" in text
    ok, text, _ = await call("read_file", path="long.txt", offset=-1)
    assert not ok and "offset" in text
    (world.ws / "empty.txt").write_text("")
    ok, text, _ = await call("read_file", path="empty.txt")
    assert ok and "is empty" in text
    ok, text, _ = await call("read_file", path="missing.txt")
    assert not ok and "does not exist" in text
    ok, text, _ = await call("read_file", path="sub")
    assert not ok and "is a folder" in text
    ok, text, _ = await call("read_file", path="n" * 300)
    assert not ok and "File name too long" in text and len(text) < 400


async def test_binary_files_are_refused_politely(world, make_caller) -> None:
    call = make_caller()
    (world.ws / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    (world.ws / "blob.bin").write_bytes(b"abc\x00def" * 100)
    ok, text, _ = await call("read_file", path="img.png")
    assert not ok and "a PNG image" in text and "read_file reads text" in text
    ok, text, _ = await call("read_file", path="blob.bin")
    assert not ok and "binary data" in text
    (world.ws / "latin.txt").write_bytes("caf\xe9 cr\xe8me".encode("latin-1"))
    ok, text, _ = await call("read_file", path="latin.txt")
    assert ok and "café crème" in text
    (world.ws / "wide.txt").write_bytes("résumé\n".encode("utf-16"))
    ok, text, _ = await call("read_file", path="wide.txt")
    assert ok and text == "résumé\n"


async def test_fifo_is_refused_without_blocking(world, make_caller) -> None:
    os.mkfifo(world.ws / "pipe")
    ok, text, _ = await make_caller()("read_file", path="pipe")
    assert not ok and "not a regular file" in text


def _make_docs(ws: Path) -> None:
    import docx
    import openpyxl
    import pptx
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.cell(text="Quarterly revenue grew 12 percent")
    pdf.add_page()
    pdf.cell(text="Second page conclusion")
    pdf.output(str(ws / "report.pdf"))
    d = docx.Document()
    d.add_paragraph("Minutes of the board meeting")
    t = d.add_table(rows=1, cols=2)
    t.rows[0].cells[0].text, t.rows[0].cells[1].text = "budget", "42"
    d.save(ws / "minutes.docx")
    wb = openpyxl.Workbook()
    wb.active.title = "Sales"
    wb.active.append(["month", "amount"])
    wb.active.append(["March", 1234])
    wb.save(ws / "sales.xlsx")
    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Roadmap 2027"
    slide.placeholders[1].text = "Ship the sandbox"
    deck.save(ws / "deck.pptx")


async def test_documents_are_read_as_text(world, make_caller) -> None:
    _make_docs(world.ws)
    call = make_caller()
    ok, text, _ = await call("read_file", path="report.pdf")
    assert ok and "--- page 1 ---" in text and "Quarterly revenue grew 12 percent" in text
    assert "--- page 2 ---\nSecond page conclusion" in text
    ok, text, _ = await call("read_file", path="minutes.docx")
    assert ok and "Minutes of the board meeting" in text and "budget\t42" in text
    ok, text, _ = await call("read_file", path="sales.xlsx")
    assert ok and "--- sheet Sales ---" in text and "March\t1234" in text
    ok, text, _ = await call("read_file", path="deck.pptx")
    assert ok and "Roadmap 2027" in text and "Ship the sandbox" in text
    # A document is not edited as text.
    ok, text, _ = await call("edit_file", path="report.pdf", old_string="x", new_string="y")
    assert not ok and "is a PDF document" in text and "not text" in text


async def test_damaged_document_is_a_clear_error(world, make_caller) -> None:
    (world.ws / "broken.docx").write_bytes(b"PK\x03\x04 not really a zip")
    ok, text, _ = await make_caller()("read_file", path="broken.docx")
    assert not ok and "could not be read as DOCX" in text


def test_extract_text_public_entry(tmp_path: Path) -> None:
    from orkas_nb.documents import DocumentError, extract_text

    _make_docs(tmp_path)
    assert "Ship the sandbox" in extract_text(tmp_path / "deck.pptx")
    assert "March\t1234" in extract_text(str(tmp_path / "sales.xlsx"))
    (tmp_path / "notes.md").write_text("# plain text\n")
    assert extract_text(tmp_path / "notes.md") == "# plain text\n"
    (tmp_path / "x.bin").write_bytes(b"\x7fELF\x00\x00")
    with pytest.raises(DocumentError, match="a program"):
        extract_text(tmp_path / "x.bin")


async def test_secret_files_need_consent(world, make_caller) -> None:
    recorder = Recorder(answer=Decision.DENY)
    call = make_caller(approver=recorder)
    ok, text, _ = await call("read_file", path=".env")
    assert not ok and "did not consent" in text and CANARIES["env"] not in text
    assert recorder.asked[0].kind == "path" and recorder.asked[0].category == "secret_file"
    recorder.answer = Decision.RUN
    ok, text, _ = await call("read_file", path=".env")
    assert ok and CANARIES["env"] in text
    ok, text, _ = await call("read_file", path=".env")
    assert ok and len(recorder.asked) == 2  # remembered for this run
    (world.ws / ".env.example").write_text("API_KEY=\n")
    ok, text, _ = await call("read_file", path=".env.example")
    assert ok and len(recorder.asked) == 2  # examples are not secrets


async def test_edit_requires_read_and_unique_match(world, make_caller) -> None:
    call = make_caller()
    (world.ws / "code.py").write_text("x = 1\ny = 1\nz = 2\n")
    ok, text, _ = await call("edit_file", path="code.py", old_string="z = 2", new_string="z = 3")
    assert not ok and "read code.py with read_file before editing it" in text
    await call("read_file", path="code.py")
    ok, text, _ = await call("edit_file", path="code.py", old_string=" = 1", new_string=" = 5")
    assert not ok and "appears 2 times" in text
    ok, text, _ = await call("edit_file", path="code.py", old_string="w = 0", new_string="w = 1")
    assert not ok and "not found" in text
    ok, text, _ = await call("edit_file", path="code.py", old_string="z = 2", new_string="z = 2")
    assert not ok and "the same" in text
    ok, text, _ = await call("edit_file", path="code.py", old_string="", new_string="a")
    assert not ok and "empty" in text
    ok, text, out = await call("edit_file", path="code.py", old_string="z = 2", new_string="z = 3")
    assert ok and "line 3" in text and out.output_files == ["code.py"]
    ok, text, _ = await call("edit_file", path="code.py", old_string=" = 1", new_string=" = 7",
                             replace_all=True)
    assert ok and "replaced 2" in text
    assert (world.ws / "code.py").read_text() == "x = 7\ny = 7\nz = 3\n"
    ok, text, _ = await call("edit_file", path="nothing.py", old_string="a", new_string="b")
    assert not ok and "does not exist" in text


async def test_stale_error_when_the_file_changed_since_the_read(world, make_caller) -> None:
    call = make_caller()
    target = world.ws / "shared.txt"
    target.write_text("alpha\nbeta\n")
    await call("read_file", path="shared.txt")
    target.write_text("alpha\nbeta\ngamma (someone else)\n")
    ok, text, _ = await call("edit_file", path="shared.txt", old_string="beta", new_string="BETA")
    assert not ok and text.startswith("Error: stale:") and "Read it again" in text
    assert target.read_text() == "alpha\nbeta\ngamma (someone else)\n"
    ok, text, _ = await call("write_file", path="shared.txt", content="overwrite")
    assert not ok and "stale" in text
    await call("read_file", path="shared.txt")
    ok, _, _ = await call("edit_file", path="shared.txt", old_string="beta", new_string="BETA")
    assert ok and "BETA" in target.read_text() and "someone else" in target.read_text()


async def test_write_records_the_deliverable_and_keeps_modes(world, make_caller) -> None:
    call = make_caller()
    ok, text, out = await call("write_file", path="out/report.md", content="# Report\n")
    assert ok and out.output_files == ["out/report.md"]
    assert (world.ws / "out" / "report.md").read_text() == "# Report\n"
    ok, text, _ = await call("write_file", path="a.txt", content="replace")
    assert not ok and "read it with read_file before replacing it" in text
    script = world.ws / "run.sh"
    script.write_text("echo 1\n")
    script.chmod(0o755)
    await call("read_file", path="run.sh")
    ok, _, _ = await call("write_file", path="run.sh", content="echo 2\n")
    assert ok and script.stat().st_mode & 0o777 == 0o755
    assert not [p for p in world.ws.rglob("*orkas-tmp*")]  # no temporary file left behind


async def test_allowed_folder_is_usable_and_listed_absolute(world, make_caller) -> None:
    extra = world.root / "data"
    extra.mkdir()
    (extra / "d.csv").write_text("a,b\n")
    call = make_caller(allowed_paths=[str(extra)])
    ok, text, _ = await call("read_file", path=str(extra / "d.csv"))
    assert ok and text == "a,b\n"
    ok, _, out = await call("write_file", path=str(extra / "e.csv"), content="c\n")
    assert ok and out.output_files == [str(extra / "e.csv")]


async def test_stat_file(world, make_caller) -> None:
    call = make_caller()
    ok, text, _ = await call("stat_file", path="a.txt")
    assert ok and "type: file" in text and "size: 12 bytes" in text and "modified:" in text
    ok, text, _ = await call("stat_file", path="sub")
    assert ok and "type: folder" in text
    ok, text, _ = await call("stat_file", path=".env")
    assert ok and "secret" in text  # its existence is fine; its content needs consent
    ok, text, _ = await call("stat_file", path="hard_link.txt")
    assert ok and "hard links" in text


async def test_toctou_swap_after_the_check_is_refused(world, make_caller, monkeypatch) -> None:
    """A file swapped for a symlink between the policy check and the open is not followed."""
    from orkas_nb.tools import paths

    call = make_caller()
    victim = world.ws / "victim.txt"
    victim.write_text("innocent\n")
    real_check = paths.PathPolicy.check

    def check_then_swap(self, raw, **kw):
        resolved = real_check(self, raw, **kw)
        if raw == "victim.txt":
            victim.unlink()
            victim.symlink_to(world.outside / "canary.txt")
        return resolved

    monkeypatch.setattr(paths.PathPolicy, "check", check_then_swap)
    ok, text, _ = await call("read_file", path="victim.txt")
    assert not ok and "changed while it was being opened" in text
    assert CANARIES["outside"] not in text
    # The same swap on a folder on the way (sub/ becomes a link to the outside).
    (world.ws / "sub" / "f.txt").write_text("in sub\n")

    def swap_dir(self, raw, **kw):
        resolved = real_check(self, raw, **kw)
        if raw.startswith("sub/"):
            os.rename(world.ws / "sub", world.ws / "sub_old")
            (world.ws / "sub").symlink_to(world.outside, target_is_directory=True)
            (world.outside / "f.txt").write_text(CANARIES["outside"])
        return resolved

    monkeypatch.setattr(paths.PathPolicy, "check", swap_dir)
    ok, text, _ = await call("read_file", path="sub/f.txt")
    assert not ok and "changed while it was being opened" in text
    (world.ws / "sub").unlink()
    os.rename(world.ws / "sub_old", world.ws / "sub")
    ok, text, _ = await call("write_file", path="sub/g.txt", content="x")
    assert not ok and "changed while it was being opened" in text
    assert not (world.outside / "g.txt").exists()
