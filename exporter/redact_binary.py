"""The text a file that is not text holds, for the rules to read: what any attachment (an
image, audio, a PDF, an archive, a document) is scanned as before it is copied.

Every file is read as its bytes (``texts``): as Latin-1, one character per byte, so text
stored as it is (a PDF's plain strings, a TIFF's or HEIC's EXIF, an MP3's ID3 frames) is
seen whatever the format; as the UTF-16 runs in it (Windows' strings, ID3 comments, a
PDF's Unicode strings), whose letters Latin-1 reads with a NUL between each; and a PNG's
chunks and an MP3's ID3 frames each on its own. Formats
that compress their text are opened too, within bounds: a PDF's Flate streams, the
deflated members of a zip (DOCX, XLSX, PPTX, ODF, a JAR, a plain zip) and a gzip file,
each read the same way, a container in them once more. A file is opened only so far:
``_INFLATE_AT_MOST`` bytes inflated from it in all and ``_PARTS_AT_MOST`` streams or
members (a zip bomb stops there). What lies past those, an encrypted member, a method
other than deflate and a stream that is not zlib cannot be checked: it is not read, and
decides nothing (the rest of the file does).
"""

from __future__ import annotations

import re
import struct
import zlib
from collections.abc import Iterator

# Bytes inflated from one file in all, and streams or members opened: a document's text is
# a few megabytes; a file past these is read only so far.
_INFLATE_AT_MOST = 32 << 20
_PARTS_AT_MOST = 4096
_NESTED_AT_MOST = 2  # containers opened inside one another (a DOCX inside a zip)
_FEED = 1 << 20  # compressed bytes given to zlib at a time
# UTF-16 text (little and big endian): code units of Latin-1's letters, four or more.
_UTF16_LE = re.compile(rb"(?:[\t\n\r\x20-\x7e\xa0-\xff]\x00){4,}")
_UTF16_BE = re.compile(rb"(?:\x00[\t\n\r\x20-\x7e\xa0-\xff]){4,}")
_PDF_STREAM = re.compile(rb"stream\r?\n")
# A PDF stream whose dictionary says it holds pixels or a font: not text, left closed so
# that the bytes to inflate go to the text.
_PDF_NOT_TEXT = (b"/Image", b"/Length1", b"/Length2", b"/Type1C", b"/CIDFontType0C", b"/OpenType")
_PDF_DICTIONARY_AT_MOST = 1024  # bytes before ``stream`` read for its dictionary
_NO_TEXT = bytes.maketrans(
    bytes([*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20), *range(0x7F, 0xA0), 0xAD]),
    b"\xa6" * 63,
)
_ZIP_MEMBER = b"PK\x03\x04"
_PNG = b"\x89PNG\r\n\x1a\n"
_PNG_CHUNK = struct.Struct(">I4s")  # a chunk's length and type
_ID3_FRAME = struct.Struct(">4sI")  # a frame's name and size (then two bytes of flags)
_ZIP_HEADER = struct.Struct("<4sHHHHHIIIHH")  # a local file header, before its name


def texts(data: bytes) -> Iterator[str]:
    """The texts ``data`` holds, in turn: its bytes as Latin-1, its UTF-16 runs, a PNG's
    chunks or an MP3's frames each on its own, then each compressed stream or member it
    holds, inflated (and read the same way). Read lazily: the first that holds a secret
    is enough to withhold a file."""
    yield from _texts(data, _Budget(), 0, raw=True)


class _Budget:
    """What is still to be inflated from one file: bytes, and streams or members."""

    def __init__(self) -> None:
        self.bytes = _INFLATE_AT_MOST
        self.parts = _PARTS_AT_MOST

    def part(self) -> bool:
        """Take one stream or member, if any is left (and any byte to inflate it to)."""
        if self.parts <= 0 or self.bytes <= 0:
            return False
        self.parts -= 1
        return True


def _texts(data: bytes, budget: _Budget, depth: int, raw: bool = False) -> Iterator[str]:
    # A file's own bytes as Latin-1; inflated text that is UTF-8 (a DOCX's XML) as UTF-8,
    # so that a word outside ASCII reads as itself.
    read = without_pixels(data)
    yield _latin1(read) if raw else _as_text(read)
    yield from _utf16_runs(read)
    records = _records(data, budget)
    if records:
        yield "\n".join(map(_as_text, records))
    if depth < _NESTED_AT_MOST:
        for inner in _inflated(data, budget):
            yield from _texts(inner, budget, depth + 1)


def _as_text(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return _latin1(data)


def _latin1(data: bytes) -> str:
    """Bytes as Latin-1, those that are no text in it (control codes, the soft hyphen) as
    ``¦``: each still parts the words on either side, as the byte did, and the text holds
    nothing a note would not show, which the rules would otherwise read a second and a
    third time without (``Redactor.text``): a megabyte of pixels, three times the work."""
    return data.translate(_NO_TEXT).decode("latin-1")


def _utf16_runs(data: bytes) -> Iterator[str]:
    """The UTF-16 text in ``data``, read little-endian, then big-endian, a run a line
    (Latin-1 reads it with NULs between). ASCII reads both ways, a byte apart, with the
    byte before or after it as a letter of its own: the second is read only when the first
    finds nothing (``any``), so a secret is found, and counted, once."""
    if b"\0" in data:
        for pattern, codec in ((_UTF16_LE, "utf-16-le"), (_UTF16_BE, "utf-16-be")):
            runs = [m.group().decode(codec) for m in pattern.finditer(data)]
            if runs:
                yield "\n".join(runs)


def _records(data: bytes, budget: _Budget) -> list[bytes]:
    """The bodies of a PNG's chunks (a compressed one inflated) or of an MP3's ID3 frames,
    each on its own: read byte by byte, a chunk's last word runs into the bytes after it
    (its CRC, the next frame's name), and a token that ends one would not end there. Read
    as far as they fit: a file cut short too (one past its end is read to the end). (An
    ID3 tag with an extended header, rare, is left to the other readings.)"""
    png = data.startswith(_PNG)
    if png:
        pos, head, tail, end = 8, 8, 4, len(data)
    elif data[:3] == b"ID3" and len(data) >= 10 and data[3] in (3, 4) and not data[5] & 0x40:
        pos, head, tail, end = 10, 10, 0, min(len(data), 10 + _synchsafe(data[6:10]))
    else:
        return []
    bodies: list[bytes] = []
    while pos + head <= end and len(bodies) < _PARTS_AT_MOST:
        if png:
            size, kind = _PNG_CHUNK.unpack_from(data, pos)
        else:
            kind, size = _ID3_FRAME.unpack_from(data, pos)
            size = _synchsafe(data[pos + 4 : pos + 8]) if data[3] == 4 else size
            if not kind.strip(b"\0"):  # the tag's padding
                break
        body = data[pos + head : min(pos + head + size, end)]
        if kind == b"zTXt" or (kind == b"iTXt" and body.partition(b"\0")[2][:1] == b"\1"):
            compressed = body.partition(b"\0")[2][1:]  # after the keyword and a method
            if kind == b"iTXt":  # a method, a language and a translated keyword more
                compressed = compressed[1:].partition(b"\0")[2].partition(b"\0")[2]
            body = _inflate(memoryview(compressed), 15, budget) if budget.part() else b""
        if kind != b"IDAT":  # (pixels)
            bodies.append(body)
        pos += head + size + tail
    return bodies


def without_pixels(data: bytes) -> bytes:
    """``data`` without a PNG's or a JPEG's compressed pixels (a PNG's IDAT bodies, a JPEG's
    scans), each left as one byte that parts the words on either side: most of a screenshot's
    bytes, which hold no text, and which the rules read at about 15 MB/s (a 3 MB screenshot:
    0.5 s). Every other byte stays: headers, metadata, a chunk or segment of any kind, CRCs,
    whatever follows the image's end. A chunk or segment whose length runs past the file's
    end, or a JPEG's marker out of place, ends the cutting: the rest is read as it is."""
    if data.startswith(_PNG):
        return _cut(data, _png_pixels(data))
    if data[:3] == b"\xff\xd8\xff":
        return _cut(data, _jpeg_scans(data))
    return data


def _cut(data: bytes, spans: list[tuple[int, int]]) -> bytes:
    if not spans:
        return data
    kept, pos = [], 0
    for start, end in spans:
        kept += [data[pos:start], b"\0"]
        pos = end
    kept.append(data[pos:])
    return b"".join(kept)


def _png_pixels(data: bytes) -> list[tuple[int, int]]:
    """Where a PNG's IDAT bodies lie, as (start, end)."""
    spans, pos = [], 8
    while pos + 12 <= len(data):
        size, kind = _PNG_CHUNK.unpack_from(data, pos)
        if pos + 12 + size > len(data):
            break
        if kind == b"IDAT":
            spans.append((pos + 8, pos + 8 + size))
        pos += 12 + size
    return spans


_JPEG_MARKER = re.compile(rb"\xff[^\x00\xd0-\xd7\xff]")  # (not stuffing, a restart, a fill)


def _jpeg_scans(data: bytes) -> list[tuple[int, int]]:
    """Where a JPEG's entropy-coded scans lie, as (start, end): after each start of scan's
    header (``FFDA``), up to the next marker."""
    spans, pos = [], 2
    while pos + 4 <= len(data) and data[pos] == 0xFF:
        marker = data[pos + 1]
        if marker == 0xD9:  # the end of the image
            break
        if marker == 0xFF or 0xD0 <= marker <= 0xD7 or marker == 0x01:  # (fill, no length)
            pos += 1 if marker == 0xFF else 2
            continue
        (size,) = struct.unpack_from(">H", data, pos + 2)
        if size < 2 or pos + 2 + size > len(data):
            break
        pos += 2 + size
        if marker == 0xDA:  # a scan: its data up to the next marker
            found = _JPEG_MARKER.search(data, pos)
            if found is None:
                break
            spans.append((pos, found.start()))
            pos = found.start()
    return spans


def _synchsafe(four: bytes) -> int:
    """An ID3v2.4 size: seven bits a byte."""
    return sum((byte & 0x7F) << (7 * (3 - i)) for i, byte in enumerate(four))


def _inflated(data: bytes, budget: _Budget) -> Iterator[bytes]:
    """What each compressed stream or member of ``data`` inflates to."""
    if data[:3] == b"\x1f\x8b\x08" and budget.part():  # gzip
        inner = _inflate(memoryview(data), 31, budget)
        if inner:
            yield inner
    if b"%PDF-" in data[:1024]:
        yield from _pdf_streams(data, budget)
    if _ZIP_MEMBER in data:
        yield from _zip_members(data, budget)


def _pdf_streams(data: bytes, budget: _Budget) -> Iterator[bytes]:
    """Each Flate stream of a PDF (page contents, object streams with the document's
    strings), found by its keywords: a PDF cut short or with a broken table is read too."""
    view = memoryview(data)
    for match in _PDF_STREAM.finditer(data):
        start = match.end()
        if data[match.start() - 3 : match.start()] == b"end" or not _zlib_header(data, start):
            continue
        dictionary = data[max(0, match.start() - _PDF_DICTIONARY_AT_MOST) : match.start()]
        dictionary = dictionary[max(dictionary.rfind(b"obj"), 0) :]
        if any(word in dictionary for word in _PDF_NOT_TEXT):
            continue
        if not budget.part():
            return
        end = data.find(b"endstream", start)
        inner = _inflate(view[start : end if end >= 0 else len(data)], 15, budget)
        if inner:
            yield inner


def _zip_members(data: bytes, budget: _Budget) -> Iterator[bytes]:
    """Each deflated member of a zip, found by its local header (not the directory at the
    end: a zip cut short, or one after other bytes, is read too)."""
    view = memoryview(data)
    pos = data.find(_ZIP_MEMBER)
    while 0 <= pos <= len(data) - _ZIP_HEADER.size:
        _, _, flags, method, _, _, _, size, _, name, extra = _ZIP_HEADER.unpack_from(data, pos)
        start = pos + _ZIP_HEADER.size + name + extra
        if method == 8 and not flags & 1:  # deflated, not encrypted
            if not budget.part():
                return
            # (the size is 0 when a descriptor after the data gives it: deflate ends itself)
            end = start + size if 0 < size and start + size <= len(data) else len(data)
            inner = _inflate(view[start:end], -15, budget)
            if inner:
                yield inner
        # The next header, looked for inside this member too: a zip stored in it.
        pos = data.find(_ZIP_MEMBER, max(start, pos + 4))


def _zlib_header(data: bytes, pos: int) -> bool:
    """Do the two bytes at ``pos`` start a zlib stream (deflate, a valid check)?"""
    head = data[pos : pos + 2]
    return (
        len(head) == 2
        and head[0] & 0x0F == 8
        and head[0] >> 4 <= 7
        and ((head[0] << 8 | head[1]) % 31 == 0)
    )


def _inflate(view: memoryview, wbits: int, budget: _Budget) -> bytes:
    """What the compressed stream at the start of ``view`` inflates to, as far as the
    budget allows; a broken stream gives what came before the break."""
    inflater = zlib.decompressobj(wbits)
    out: list[bytes] = []
    pos = 0
    while pos < len(view) and not inflater.eof and budget.bytes > 0:
        try:
            piece = inflater.decompress(view[pos : pos + _FEED], budget.bytes)
        except zlib.error:
            break
        budget.bytes -= len(piece)
        out.append(piece)
        pos += _FEED  # (input left unread means the budget is spent: the loop ends)
    return b"".join(out)
