"""Every attachment that is not text is scanned before it is copied, whatever its type: its
bytes as Latin-1, its UTF-16 runs, and the text a PDF's Flate streams, a zip's members
(DOCX, XLSX, ODT) or a gzip file compress, inflated within bounds. One that holds a secret
is not copied (the note says why); a clean one is copied byte for byte. Before, a PNG cut
before its end, a TIFF, a HEIC, an MP3's ID3 comment, a PDF's deflated text and a DOCX
reached ``attachments/ccexport/`` with the token inside (review 27, F9).

Every file is built here with struct, zlib and zipfile; every token is generated at test
time.
"""

from __future__ import annotations

import base64
import gzip
import io
import random
import re
import struct
import time
import zipfile
import zlib
from collections import Counter
from datetime import UTC

import pytest
from claude_builder import ClaudeSession, tiny_png
from hypothesis import given, settings
from hypothesis import strategies as st
from test_redact import SAMPLES, Gen
from test_redact_media import chunk, jpeg_with, png_with, segment, text_chunk

from exporter import redact_binary
from exporter.export import ExportOptions, run_export
from exporter.model import AttachmentPart, Message
from exporter.redact import redactor
from exporter.redact_parts import WITHHELD

TOKEN = SAMPLES["github-pat"](Gen(51))[1]
OTHER = SAMPLES["aws-access-key"](Gen(52))[1]


def scanned(data: bytes, media_type: str) -> tuple[AttachmentPart, AttachmentPart, Counter]:
    """The part as given, as redacted, and what was counted."""
    counts: Counter[str] = Counter()
    part = AttachmentPart(media_type, data, "file")
    (out,) = redactor().message(Message("user", (part,)), counts, "claude-code").parts
    return part, out, counts


def withheld(data: bytes, media_type: str) -> bool:
    _, out, _ = scanned(data, media_type)
    assert (out.data is None) == (out.withheld == WITHHELD)
    return out.withheld == WITHHELD


def copied_as_it_is(data: bytes, media_type: str) -> bool:
    part, out, counts = scanned(data, media_type)
    return out is part and not counts


# -- the files ----------------------------------------------------------------------------


def tiff(*entries: tuple[int, int, bytes]) -> bytes:
    """A little-endian TIFF: one IFD of ``(tag, type, value)``, each value after it."""
    head = b"II*\0" + struct.pack("<I", 8)
    values_at = 8 + 2 + 12 * len(entries) + 4
    ifd, values = struct.pack("<H", len(entries)), b""
    for tag, kind, value in entries:
        ifd += struct.pack("<HHII", tag, kind, len(value), values_at + len(values))
        values += value
    return head + ifd + b"\0\0\0\0" + values


def heic(exif: bytes) -> bytes:
    """An ISO BMFF file of brand ``heic``: ftyp, a meta box, and the Exif item's bytes."""

    def box(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", 8 + len(body)) + kind + body

    return box(b"ftyp", b"heic\0\0\0\0mif1heic") + box(b"meta", b"\0" * 4) + box(b"mdat", exif)


def id3(*frames: bytes) -> bytes:
    """An MP3: an ID3v2.3 tag of ``frames``, then one silent MPEG frame's header."""
    body = b"".join(frames)
    size = bytes((len(body) >> s) & 0x7F for s in (21, 14, 7, 0))  # synchsafe
    return b"ID3\x03\x00\x00" + size + body + b"\xff\xfb\x90\x64" + b"\0" * 64


def id3_frame(kind: bytes, body: bytes) -> bytes:
    return kind + struct.pack(">I", len(body)) + b"\0\0" + body


def comm(text: str) -> bytes:
    """A COMM frame in UTF-16 with its byte order mark (encoding 1), as most taggers write."""
    utf16 = b"\xff\xfe" + text.encode("utf-16-le")
    return id3_frame(b"COMM", b"\x01eng" + b"\xff\xfe\0\0" + utf16)


def pdf(*streams: bytes, compress: bool = True, info: bytes = b"") -> bytes:
    """A PDF of one page whose contents are ``streams`` (Flate-compressed unless not)."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
    ]
    for content in streams:
        body = zlib.compress(content) if compress else content
        flate = b" /Filter /FlateDecode" if compress else b""
        objects.append(b"<< /Length %d%s >>\nstream\n" % (len(body), flate) + body + b"\nendstream")
    if info:
        objects.append(info)
    out = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"
    offsets = []
    for n, obj in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + obj + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    trailer = b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n"
    return out + trailer % (len(objects) + 1, xref)


def page(text: str) -> bytes:
    return b"BT /F1 12 Tf 72 712 Td (" + text.encode() + b") Tj ET"


def office(members: dict[str, str | bytes], stored: str = "[Content_Types].xml") -> bytes:
    """A zip as Word, Excel or LibreOffice write one: XML members deflated."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(stored, '<?xml version="1.0"?><Types/>', zipfile.ZIP_STORED)
        for name, text in members.items():
            z.writestr(name, text)
    return out.getvalue()


def docx(text: str) -> bytes:
    body = f'<w:document><w:body><w:p><w:r><w:t xml:space="preserve">{text}</w:t></w:r></w:p>'
    return office({"word/document.xml": body + "</w:body></w:document>"})


DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
ODT = "application/vnd.oasis.opendocument.text"


# -- the review's cases ---------------------------------------------------------------------


def test_each_file_the_review_found_copied_with_a_token_is_withheld_and_the_note_says_why():
    cut_png = png_with(text_chunk(b"tEXt", "Comment", f"pasted {TOKEN}"))[:-12]  # no IEND
    cases = {
        "a PNG cut before IEND": (cut_png, "image/png"),
        "a TIFF's description": (tiff((270, 2, f"deploy {TOKEN}\0".encode())), "image/tiff"),
        "a HEIC's EXIF": (heic(b"Exif\0\0MM\0*" + f"key {TOKEN}".encode()), "image/heic"),
        "an MP3's ID3 comment": (id3(comm(f"token {TOKEN}")), "audio/mpeg"),
        "a PDF's deflated page": (pdf(page(f"token {TOKEN}")), "application/pdf"),
        "a DOCX": (docx(f"the key is {TOKEN}"), DOCX),
    }
    missed = []
    for what, (data, media_type) in cases.items():
        _, out, counts = scanned(data, media_type)
        if (out.data, out.withheld, counts) != (None, WITHHELD, {"github-pat": 1}):
            missed.append(what)
        assert out.media_type == media_type
    assert missed == []


def test_the_same_files_without_a_token_are_copied_byte_for_byte():
    """Clean: every kind above, and a PNG, a JPEG and a PDF as a run copied them before."""
    cases = [
        (png_with(text_chunk(b"tEXt", "Comment", "a red square"))[:-12], "image/png"),
        (tiff((270, 2, b"a sunset\0"), (271, 2, b"Canon\0")), "image/tiff"),
        (heic(b"Exif\0\0MM\0*Apple iPhone"), "image/heic"),
        (id3(comm("ripped from a CD"), id3_frame(b"TIT2", b"\0A song")), "audio/mpeg"),
        (pdf(page("Hello, world"), page("page two")), "application/pdf"),
        (docx("a letter to the bank"), DOCX),
        (tiny_png(), "image/png"),
        (jpeg_with(), "image/jpeg"),
        (gzip.compress(b"a log with nothing in it\n" * 100), "application/gzip"),
    ]
    for data, media_type in cases:
        assert copied_as_it_is(data, media_type), media_type


def test_random_bytes_are_copied_as_they_are():
    """Pixels and samples are compressed bytes: a megabyte of them holds no secret."""
    noise = random.Random(27).randbytes(1 << 20)
    for media_type in ("image/png", "audio/mpeg", "video/mp4", "application/octet-stream"):
        assert copied_as_it_is(noise, media_type)
    assert copied_as_it_is(b"%PDF-1.4\nstream\n\x78\x9c" + noise, "application/pdf")
    assert copied_as_it_is(b"PK\x03\x04\x14\0\0\0\x08\0" + noise, "application/zip")


def test_a_secret_past_an_images_metadata_withholds_it_and_one_in_metadata_is_left_out():
    """Metadata that holds one goes, and the image is copied; a token the metadata reader
    does not reach (bytes after IEND) withholds the file."""
    secret = text_chunk(b"tEXt", "Comment", f"token={TOKEN}")
    out = scanned(png_with(secret), "image/png")[1]
    assert out.data == png_with() and out.withheld is None
    assert withheld(tiny_png() + f"\nDB_PASSWORD={OTHER}".encode(), "image/png")


def test_a_token_that_ends_a_chunk_or_frame_is_found_though_letters_follow_it():
    """Read byte by byte, a token at the end of a PNG chunk runs into its CRC, and one at
    the end of an ID3 frame into the next frame's name: a PNG's chunks and an MP3's
    frames are read each on its own too."""
    private = png_with(chunk(b"prVt", f"key {TOKEN}".encode()))
    song = id3(id3_frame(b"TXXX", b"\0key\0" + TOKEN.encode()), id3_frame(b"TALB", b"\0Album"))
    for data, media_type in ((private, "image/png"), (song, "audio/mpeg")):
        assert re.search(re.escape(TOKEN.encode()) + rb"\w", data)  # glued in the bytes
        assert withheld(data, media_type)


# -- containers ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "media_type"),
    [
        (office({"xl/sharedStrings.xml": f"<sst><si><t>{TOKEN}</t></si></sst>"}), XLSX),
        (office({"content.xml": f"<office:text>key: {TOKEN}</office:text>"}, "mimetype"), ODT),
        (
            office(
                {
                    "word/document.xml": "<w:t>hello</w:t>",
                    "docProps/core.xml": f"<dc:creator>ci {TOKEN}</dc:creator>",
                }
            ),
            DOCX,
        ),  # fmt: skip
        (office({"inner.docx": docx(f"token {TOKEN}")}), "application/zip"),
        (gzip.compress(f"export GITHUB_TOKEN={TOKEN}\n".encode()), "application/gzip"),
        (
            pdf(
                page("page one"),
                info=b"<< /Type /ObjStm /Filter /FlateDecode >>\nstream\n"
                + zlib.compress(f"<< /Author (ci {TOKEN}) >>".encode())
                + b"\nendstream",
            ),
            "application/pdf",
        ),  # fmt: skip
        (pdf(page(f"{TOKEN}"), compress=True)[:-60], "application/pdf"),  # cut short
    ],
    ids=["xlsx", "odt", "docx-properties", "docx-in-a-zip", "gzip", "pdf-object-stream", "pdf-cut"],
)
def test_a_token_a_container_compresses_is_found(data, media_type):
    assert TOKEN.encode() not in data
    assert withheld(data, media_type)


def test_a_file_is_inflated_only_so_far_and_what_lies_past_is_not_checked(monkeypatch):
    """A zip bomb or a zip of a thousand members is read to its bounds: a secret within them
    is found; what lies past them cannot be checked and is copied as it is."""
    monkeypatch.setattr(redact_binary, "_INFLATE_AT_MOST", 1 << 20)
    monkeypatch.setattr(redact_binary, "_PARTS_AT_MOST", 16)
    zeros = "\0" * (4 << 20)
    began = time.perf_counter()
    assert withheld(office({"a.xml": f"key {TOKEN}" + zeros}), "application/zip")
    assert copied_as_it_is(office({"a.xml": zeros + f"key {TOKEN}"}), "application/zip")
    many = {f"{n}.xml": "<x/>" for n in range(20)}
    assert copied_as_it_is(office({**many, "z.xml": f"key {TOKEN}"}), "application/zip")
    assert withheld(office({"z.xml": f"key {TOKEN}", **many}), "application/zip")
    assert time.perf_counter() - began < 10
    broken = (
        b"%PDF-1.4\n1 0 obj<</Filter/FlateDecode>>stream\n"
        + zlib.compress(f"key {TOKEN} and the words after it".encode())[:-8]
    )
    assert withheld(broken, "application/pdf")  # read to where it breaks
    # A PDF's pictures and fonts are not opened: the bytes to inflate go to its text.
    picture = b"<< /Subtype /Image /Filter /FlateDecode >>\nstream\n" + zlib.compress(
        b"\0" * (2 << 20)
    )
    assert withheld(
        pdf(page("cover"), info=picture + b"\nendstream") + pdf(page(TOKEN)), "application/pdf"
    )


def test_utf16_text_is_read_as_the_letters_it_holds():
    """Windows' strings and ID3 frames are UTF-16; read byte by byte, their letters glue to
    the bytes before them (a TIFF's make, ``Canon``, then an XPComment): read as UTF-16
    runs, each stands on its own."""
    comment = f"{TOKEN} used".encode("utf-16-le") + b"\0\0"
    image = tiff((271, 2, b"Canon\0"), (0x9C9C, 1, comment))
    assert withheld(image, "image/tiff")
    big_endian = b"\x01\x02BE" + f"{TOKEN}".encode("utf-16-be")
    assert withheld(big_endian, "application/octet-stream")


def test_an_attached_pdf_holding_a_secret_is_not_copied_into_the_vault(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    document = pdf(page(f"api key {TOKEN}"))
    clean = pdf(page("the quarterly report"))
    s = ClaudeSession("5ec7e700-0000-4000-8000-0000000bd0c5")
    s.user([_document(document), _document(clean), {"type": "text", "text": "read these"}])
    s.assistant("Read.")
    s.write(home / ".claude" / "projects" / "-home-dev-work-shop" / f"{s.session_id}.jsonl")
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC))
    assert report.redactions == {"github-pat": 1}
    written = [p.read_bytes() for p in (vault / "attachments" / "ccexport").iterdir()]
    assert written == [clean]
    (note,) = (vault / "AI Sessions" / "claude-code").rglob("*.md")
    assert f"not copied into the vault: {WITHHELD}" in note.read_text()


def _document(data: bytes) -> dict:
    data64 = base64.b64encode(data).decode()
    return {"type": "document", "source": {"type": "base64", "media_type": "application/pdf",
                                           "data": data64}}  # fmt: skip


def _screenshot(size: int) -> bytes:
    """A PNG whose pixels (two IDAT chunks, random bytes) are ``size`` bytes."""
    pixels = random.Random(size).randbytes(size)
    return png_with(chunk(b"IDAT", pixels[: size // 2]), chunk(b"IDAT", pixels[size // 2 :]))


def test_a_screenshots_pixels_are_not_read_as_text_and_all_else_is():
    """A PNG's IDAT bodies and a JPEG's scans are most of a screenshot's bytes and hold no
    text: the rules read them at about 15 MB/s (a 3 MB screenshot, 0.5 s, for every image
    of every session). What surrounds them is read: a chunk between them, a comment after a
    scan, bytes after the image's end."""
    png = _screenshot(3_000_000)
    assert sum(map(len, redact_binary.texts(png))) < 1_000
    assert copied_as_it_is(png, "image/png")
    jpeg = jpeg_with()
    scan_data = b"\x12\x34\xff\x00\x56"  # jpeg_with's scan
    assert scan_data in jpeg and not any("\x12\x34" in text for text in redact_binary.texts(jpeg))
    for data in (png + f" {TOKEN}".encode(), jpeg + f" {TOKEN}".encode(),
                 jpeg[:-2] + segment(0xFE, f"key {TOKEN}".encode()) + jpeg[-2:]):  # fmt: skip
        assert scanned(data, "image/png" if data.startswith(b"\x89") else "image/jpeg")[1].withheld


# -- the property ------------------------------------------------------------------------------

_TEXT = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters="\\"),
                max_size=40)  # fmt: skip


def _contain(kind: str, text: str) -> tuple[bytes, str]:
    if kind == "docx":
        return docx(text), DOCX
    if kind == "pdf":
        return pdf(page("cover"), page(text)), "application/pdf"
    if kind == "gzip":
        return gzip.compress(text.encode()), "application/gzip"
    if kind == "mp3":
        return id3(id3_frame(b"TIT2", b"\0Track"), comm(text)), "audio/mpeg"
    if kind == "tiff":
        return tiff((271, 2, b"Nikon\0"), (270, 2, text.encode() + b"\0")), "image/tiff"
    if kind == "png-chunk":  # a private chunk between two chunks of pixels
        png = _screenshot(4096)
        at = png.index(b"IEND") - 4
        return png[:at] + chunk(b"prVt", text.encode()) + png[at:], "image/png"
    if kind == "jpeg":  # a comment after a scan's pixels, before the image's end
        data = jpeg_with()
        return data[:-2] + segment(0xFE, text.encode()) + data[-2:], "image/jpeg"
    return tiny_png() + text.encode(), "image/png"  # after IEND


@settings(max_examples=150, deadline=None)
@given(
    kind=st.sampled_from(["docx", "pdf", "gzip", "mp3", "tiff", "png", "png-chunk", "jpeg"]),
    before=_TEXT,
    after=_TEXT,
    glue=st.sampled_from([" ", "\n", "=", ":", '"']),  # a token starts a word
)
def test_a_token_placed_anywhere_in_a_container_is_never_copied_and_without_it_all_is(
    kind, before, after, glue
):
    data, media_type = _contain(kind, f"{before}{glue}{TOKEN}{glue}{after}")
    part, out, _ = scanned(data, media_type)
    assert out.data is None and out.withheld == WITHHELD
    clean, media_type = _contain(kind, f"{before}{glue}{after}")
    assume_clean = redactor().text(f"{before}{glue}{after}") == f"{before}{glue}{after}"
    if assume_clean:
        assert copied_as_it_is(clean, media_type)


_STARTS = [b"", b"\x89PNG\r\n\x1a\n", b"ID3\x03\x00\x00", b"ID3\x04\x00\x00", b"PK\x03\x04",
           b"%PDF-1.4\nstream\n", b"\x1f\x8b\x08"]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    start=st.sampled_from(_STARTS),
    rest=st.binary(max_size=300),
    whole=st.sampled_from(["docx", "pdf", "gzip", "mp3", "tiff", "png"]),
    cuts=st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), max_size=4),
)
def test_any_bytes_a_format_starts_or_a_broken_container_are_read_without_an_error(
    start, rest, whole, cuts
):
    """A file is read as it is: a header that lies, a length past the end, a broken stream
    give less text, never an error (which would stop the export)."""
    assert all(isinstance(text, str) for text in redact_binary.texts(start + rest))
    data = bytearray(_contain(whole, f"key {TOKEN}")[0])
    for at, byte in cuts:
        data[at % len(data)] = byte
    assert all(isinstance(text, str) for text in redact_binary.texts(bytes(data)))
    assert all(isinstance(text, str) for text in redact_binary.texts(bytes(data[: len(data) // 2])))


def test_doctor_reads_a_copied_file_as_a_run_reads_one_it_copies(tmp_path):
    """A PDF's compressed text, an MP3's comment, bytes after a PNG's end: what an earlier
    version copied unscanned, and no run writes again. doctor read an image's metadata alone
    and any other file's raw bytes, so it named none of these."""
    from exporter.vault_secrets import scan_vault

    folder = tmp_path / "vault" / "attachments" / "ccexport"
    folder.mkdir(parents=True)
    planted = {
        "pdf": pdf(page("cover"), page(f"key {TOKEN}")),
        "mp3": id3(id3_frame(b"TIT2", b"\0Track"), comm(f"key {TOKEN}")),
        "png": tiny_png() + f" key {TOKEN}".encode(),
    }
    for n, (ext, data) in enumerate(planted.items()):
        (folder / f"{n:016x}.{ext}").write_bytes(data)
    (folder / f"{9:016x}.png").write_bytes(_screenshot(20_000))  # clean
    scan = scan_vault(tmp_path / "vault", redactor())
    named = sorted(f.path.rpartition(".")[2] for f in scan.files)
    assert named == ["mp3", "pdf", "png"]
