"""An image's text metadata is session text: a PNG's ``tEXt``/``zTXt``/``iTXt`` chunk, a
JPEG's comment or EXIF, a GIF's comment, a WebP's ``EXIF`` that holds a secret is left out
of the copy written into the vault; the picture, and an image without a secret, are
copied byte for byte. Before, a pasted screenshot reached ``attachments/ccexport/`` as it
was, a token in its metadata included.

Every image is built here with struct and zlib; every token is generated at test time.
"""

from __future__ import annotations

import hashlib
import struct
import time
import zlib
from collections import Counter
from datetime import UTC

from claude_builder import ClaudeSession, image_block, tiny_png
from hypothesis import given, settings
from hypothesis import strategies as st
from test_redact import SAMPLES, Gen

from exporter.export import ExportOptions, run_export
from exporter.model import AttachmentPart, Message
from exporter.redact import redactor
from exporter.redact_media import metadata
from exporter.redact_parts import WITHHELD

TOKEN = SAMPLES["github-pat"](Gen(41))[1]
OTHER = SAMPLES["aws-access-key"](Gen(42))[1]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_with(*extra: bytes) -> bytes:
    """``tiny_png`` with ``extra`` chunks after its header, as an editor writes them."""
    png = tiny_png()
    head = len(PNG_SIGNATURE) + 12 + 13  # the signature and IHDR
    return png[:head] + b"".join(extra) + png[head:]


def png_chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    """Each chunk's type and data, after checking the file is a PNG: the signature, every
    length and CRC, IHDR first, IEND last and nothing after it."""
    assert data.startswith(PNG_SIGNATURE)
    pos, chunks = len(PNG_SIGNATURE), []
    while pos < len(data):
        (length,) = struct.unpack_from(">I", data, pos)
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack_from(">I", data, pos + 8 + length)
        assert crc == zlib.crc32(kind + body), kind
        chunks.append((kind, body))
        pos += 12 + length
    assert pos == len(data) and chunks[0][0] == b"IHDR" and chunks[-1][0] == b"IEND"
    return chunks


def text_chunk(kind: bytes, keyword: str, text: str, compressed: bool = False) -> bytes:
    key = keyword.encode("latin-1") + b"\0"
    if kind == b"tEXt":
        return chunk(kind, key + text.encode("latin-1"))
    if kind == b"zTXt":
        return chunk(kind, key + b"\0" + zlib.compress(text.encode("latin-1")))
    body = zlib.compress(text.encode()) if compressed else text.encode()
    return chunk(kind, key + (b"\1\0" if compressed else b"\0\0") + b"en\0Comment\0" + body)


def chunk_text(kind: bytes, body: bytes) -> bytes:
    """What a text chunk says, inflated."""
    if kind == b"zTXt":
        return zlib.decompress(body.partition(b"\0")[2][1:])
    if kind == b"iTXt":
        rest = body.partition(b"\0")[2]
        text = rest[2:].partition(b"\0")[2].partition(b"\0")[2]
        return zlib.decompress(text) if rest[:1] == b"\1" else text
    return body


def redacted(data: bytes, media_type: str = "image/png") -> tuple[AttachmentPart, Counter]:
    counts: Counter[str] = Counter()
    part = AttachmentPart(media_type, data, "shot")
    (out,) = redactor().message(Message("user", (part,)), counts, "claude-code").parts
    return out, counts


def test_a_png_text_chunk_holding_a_secret_is_left_out_and_the_rest_copied_whole():
    kept = text_chunk(b"tEXt", "Software", "Screenshot tool 2.1")
    secret = [
        text_chunk(b"tEXt", "Comment", f"token={TOKEN}"),
        text_chunk(b"zTXt", "Description", f"run with AWS_KEY={OTHER} set"),
        text_chunk(b"iTXt", "Comment", f"key {TOKEN}", compressed=True),
        text_chunk(b"iTXt", "XML:com.adobe.xmp", f"<x>{OTHER}</x>"),
    ]
    image = png_with(kept, *secret)
    out, counts = redacted(image)
    assert out.data == png_with(kept)  # every other chunk as it was, CRC and all
    assert [kind for kind, _ in png_chunks(out.data)] == [b"IHDR", b"tEXt", b"IDAT", b"IEND"]
    assert counts == {"github-pat": 2, "aws-access-key": 2}
    assert (out.media_type, out.name, out.withheld) == ("image/png", "shot", None)


def test_an_image_without_a_secret_is_copied_as_it_is():
    for image in (
        tiny_png(),
        png_with(text_chunk(b"tEXt", "Comment", "a red square"), text_chunk(b"zTXt", "a", "b")),
        jpeg_with(com(b"made by a camera")),
    ):
        part = AttachmentPart("image/png", image)
        assert (
            redactor().message(Message("user", (part,)), Counter(), "claude-code").parts[0] is part
        )


def test_a_file_that_cannot_be_read_is_still_scanned_as_any_file_is():
    """Cut short, with a chunk past its end, or no image at all: its metadata cannot be
    read, and it is scanned as any file that is not text is (its bytes, test_redact_binary):
    one that shows a token is not copied, one that shows none is copied as it is."""
    whole = png_with(text_chunk(b"tEXt", "Comment", f"token={TOKEN}"))
    for data in (whole[:-20], whole[:40], PNG_SIGNATURE + TOKEN.encode(), b"GIF89a\0"):
        assert metadata(data) is None
        out, counts = redacted(data)
        if TOKEN.encode() in data:
            assert (out.data, out.withheld) == (None, WITHHELD) and counts
        else:
            assert out.data == data and not counts


def test_a_compressed_chunk_is_inflated_only_so_far():
    """A chunk that inflates to far more than metadata ever holds (a zip bomb) is read to
    its first megabyte: a secret there is left out. What lies past it is not left out of
    the copy; the scan of the file's bytes, which inflates further, withholds a file with
    a token there (test_redact_binary), as it does one whose chunk is not zlib."""
    zeros = b"\0" * (8 << 20)
    bomb = chunk(b"zTXt", b"Comment\0\0" + zlib.compress(zeros, 9)[:-4])  # cut short, too
    early = chunk(b"zTXt", b"Comment\0\0" + zlib.compress(TOKEN.encode() + zeros))
    past = chunk(b"zTXt", b"Comment\0\0" + zlib.compress(zeros + TOKEN.encode()))
    broken = chunk(b"zTXt", b"Comment\0\0not zlib " + TOKEN.encode())
    began = time.perf_counter()
    out, counts = redacted(png_with(bomb))
    assert out.data == png_with(bomb) and not counts
    for kept in (past, broken):
        out, counts = redacted(png_with(kept))
        assert (out.data, out.withheld) == (None, WITHHELD) and counts == {"github-pat": 1}
    out, counts = redacted(png_with(early, bomb))
    assert out.data == png_with(bomb) and counts == {"github-pat": 1}
    assert time.perf_counter() - began < 5


# -- JPEG, GIF, WebP ---------------------------------------------------------------------------


def segment(marker: int, body: bytes) -> bytes:
    return bytes([0xFF, marker]) + struct.pack(">H", len(body) + 2) + body


def com(text: bytes) -> bytes:
    return segment(0xFE, text)


def jpeg_with(*segments: bytes) -> bytes:
    """A JPEG's layout: SOI, JFIF, the segments, a frame, a scan with its data, EOI."""
    jfif = segment(0xE0, b"JFIF\0\1\1\0\0\1\0\1\0\0")
    frame = segment(0xC0, b"\x08\0\x04\0\x04\x01\x01\x11\0")
    scan = segment(0xDA, b"\x01\x01\0\0\x3f\0") + b"\x12\x34\xff\x00\x56"
    return b"\xff\xd8" + jfif + b"".join(segments) + frame + scan + b"\xff\xd9"


def jpeg_markers(data: bytes) -> list[int]:
    """The markers up to the scan, after checking each segment's length."""
    assert data.startswith(b"\xff\xd8") and data.endswith(b"\xff\xd9")
    pos, markers = 2, []
    while data[pos + 1] != 0xDA:
        assert data[pos] == 0xFF
        markers.append(data[pos + 1])
        pos += 2 + struct.unpack_from(">H", data, pos + 2)[0]
    return markers


def test_a_jpeg_comment_exif_or_xmp_holding_a_secret_is_left_out():
    # EXIF: a TIFF header, then strings; Windows' XPComment is UTF-16, a NUL after each letter
    exif = b"Exif\0\0II*\0\x08\0\0\0" + f"note {OTHER}".encode("utf-16-le") + b"\0\0"
    xmp = b"http://ns.adobe.com/xap/1.0/\0<x:xmpmeta>" + f"token={TOKEN}".encode()
    clean = segment(0xE1, b"Exif\0\0MM\0*\0\0\0\x08Canon")
    image = jpeg_with(com(f"pasted {TOKEN}".encode()), segment(0xE1, exif), clean,
                      segment(0xE1, xmp))  # fmt: skip
    out, counts = redacted(image, "image/jpeg")
    assert out.data == jpeg_with(clean)
    assert jpeg_markers(out.data) == [0xE0, 0xE1, 0xC0]
    assert counts == {"github-pat": 2, "aws-access-key": 1}


def gif_with(*extensions: bytes) -> bytes:
    screen = b"GIF89a" + struct.pack("<HHBBB", 1, 1, 0x80, 0, 0) + b"\0\0\0\xff\xff\xff"
    image = b"\x2c" + struct.pack("<HHHHB", 0, 0, 1, 1, 0) + b"\x02\x02\x44\x01\x00"
    return screen + b"".join(extensions) + image + b"\x3b"


def gif_comment(text: bytes) -> bytes:
    blocks = b"".join(bytes([len(text[i : i + 255])]) + text[i : i + 255]
                      for i in range(0, len(text), 255))  # fmt: skip
    return b"\x21\xfe" + blocks + b"\0"


def test_a_gif_comment_holding_a_secret_is_left_out():
    control = b"\x21\xf9\x04\x00\x00\x00\x00\x00"
    clean = gif_comment(b"made with a paint program")
    # the token split across two sub-blocks (255 bytes each): read joined
    image = gif_with(control, gif_comment(b"x" * 240 + b" " + TOKEN.encode()), clean)
    out, counts = redacted(image, "image/gif")
    assert out.data == gif_with(control, clean) and counts == {"github-pat": 1}
    assert metadata(out.data) is not None


def webp_with(*chunks: tuple[bytes, bytes], flags: int = 0x0C) -> bytes:
    def riff_chunk(kind: bytes, body: bytes) -> bytes:
        return kind + struct.pack("<I", len(body)) + body + b"\0" * (len(body) & 1)

    body = riff_chunk(b"VP8X", bytes([flags]) + b"\0" * 9) + riff_chunk(b"VP8L", b"\x2f\0\0\0\0")
    body += b"".join(riff_chunk(kind, data) for kind, data in chunks)
    return b"RIFF" + struct.pack("<I", len(body) + 4) + b"WEBP" + body


def test_a_webp_exif_holding_a_secret_is_left_out_and_its_header_says_so():
    xmp = (b"XMP ", b"<x:xmpmeta>clean</x:xmpmeta>")
    image = webp_with((b"EXIF", b"Exif\0\0" + f"k={OTHER}".encode()), xmp)
    out, counts = redacted(image, "image/webp")
    assert out.data == webp_with(xmp, flags=0x04) and counts == {"aws-access-key": 1}


# -- the property, and an export -------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    kind=st.sampled_from([b"tEXt", b"zTXt", b"iTXt", b"iTXt+z"]),
    keyword=st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), min_size=1, max_size=20),
    before=st.text(st.characters(min_codepoint=1, max_codepoint=0xFF), max_size=60),
    after=st.text(st.characters(min_codepoint=1, max_codepoint=0xFF), max_size=60),
    glue=st.sampled_from([" ", "\n", "=", ":", '"', "\0"]),  # a token starts a word
    others=st.lists(st.text(st.characters(min_codepoint=0x20, max_codepoint=0xFF), max_size=30),
                    max_size=3),
)  # fmt: skip
def test_a_token_planted_in_any_text_chunk_never_reaches_the_file_and_it_stays_a_png(
    kind, keyword, before, after, glue, others
):
    planted = f"{before}{glue}{TOKEN}{glue}{after}"
    compressed = kind == b"iTXt+z"
    plant = text_chunk(kind[:4], keyword, planted, compressed)
    rest = [text_chunk(b"tEXt", "Comment", text) for text in others]
    out, _ = redacted(png_with(*rest[:1], plant, *rest[1:]))
    chunks = png_chunks(out.data)
    assert TOKEN.encode() not in out.data
    assert all(TOKEN.encode() not in chunk_text(k, body) for k, body in chunks)
    assert [b for k, b in chunks if k in (b"IHDR", b"IDAT")] == [
        b for k, b in png_chunks(tiny_png()) if k in (b"IHDR", b"IDAT")
    ]


def test_an_exported_screenshot_holds_no_secret_and_is_named_by_what_is_written(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    shot = png_with(text_chunk(b"tEXt", "Comment", f"token={TOKEN}"))
    plain = tiny_png((10, 200, 10))
    s = ClaudeSession("5ec7e700-0000-4000-8000-00000000face")
    s.user([image_block(shot), image_block(plain), {"type": "text", "text": "what is this?"}])
    s.assistant("Two squares.")
    s.write(home / ".claude" / "projects" / "-home-dev-work-shop" / f"{s.session_id}.jsonl")
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC))
    assert report.total("created") == 1 and report.redactions == {"github-pat": 1}
    written = {p.name: p.read_bytes() for p in (vault / "attachments" / "ccexport").iterdir()}
    assert len(written) == 2
    for name, data in written.items():
        assert name == hashlib.sha256(data).hexdigest()[:16] + ".png"
        assert TOKEN.encode() not in data
        png_chunks(data)
    assert png_with() in written.values() and plain in written.values()  # the same pixels
    (note,) = (vault / "AI Sessions" / "claude-code").rglob("*.md")
    for name in written:
        assert f"attachments/ccexport/{name}" in note.read_text()
