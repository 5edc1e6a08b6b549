"""The text an image carries besides its pixels, and the image without it.

A pasted screenshot's pixels are compressed samples; but its metadata is text a tool or a
person wrote, and can be left out of the copy without changing the picture: PNG ``tEXt``,
``zTXt`` and ``iTXt`` chunks (a comment, a command line, a prompt), ``eXIf``; JPEG ``COM``,
APP1 (EXIF, XMP) and APP13 (IPTC) segments; GIF comment and application extensions; WebP
``EXIF`` and ``XMP `` chunks.
``metadata`` finds them (the standard library only, reading at most ``_TEXT_AT_MOST``
characters of text an image, inflating at most ``_INFLATE_AT_MOST`` bytes a chunk);
``without`` writes the image with some of them left out, every other byte copied as it
was (a PNG's chunks whole, with their CRCs), so the picture is the same.

A file of another format, or one that cannot be read to its image data (a length past its
end, an unknown block), gives None: nothing can be left out of it. Every image, so read or
not, is then scanned as any file that is not text is (``redact_binary``: its bytes, its
chunks, its compressed text further than here), and withheld when that finds a secret.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# Text read from one image at most, and bytes one compressed chunk may inflate to: a
# screenshot's metadata is a few kilobytes; a file past these is read only so far (what
# lies beyond is not left out: ``redact_binary``'s scan of the file decides on it).
_TEXT_AT_MOST = 4 << 20
_INFLATE_AT_MOST = 1 << 20
_PNG_TEXT = frozenset({b"tEXt", b"zTXt", b"iTXt", b"eXIf"})
# JPEG segments holding text: COM, APP1 (EXIF, XMP) and APP13 (Photoshop's IPTC captions).
# Not APP0 (JFIF), APP2 (the ICC colour profile) or APP14 (Adobe's colour transform):
# leaving those out would change how the picture looks.
_JPEG_TEXT = frozenset({0xFE, 0xE1, 0xED})
_XMP = b"http://ns.adobe.com/"
_GIF_TEXT = frozenset({0x01, 0xFE, 0xFF})  # plain text, comment, application (XMP)
_WEBP_TEXT = {b"EXIF": 0x08, b"XMP ": 0x04}  # each with its flag in the VP8X header


@dataclass(frozen=True, slots=True)
class Piece:
    """A chunk, segment or extension of an image (``data[start:end]``, whole) and the text
    it holds, in one or more readings."""

    start: int
    end: int
    texts: tuple[str, ...]


class _Unreadable(ValueError):
    """The file is not laid out as its format says."""


def metadata(data: bytes) -> list[Piece] | None:
    """The pieces of an image that hold text, in file order; None when ``data`` is not a
    PNG, JPEG, GIF or WebP file, or is not one that can be read."""
    budget = _Budget()
    try:
        if data.startswith(PNG_SIGNATURE):
            return _png(data, budget)
        if data.startswith(b"\xff\xd8\xff"):
            return _jpeg(data, budget)
        if data[:6] in (b"GIF87a", b"GIF89a"):
            return _gif(data, budget)
        if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
            return _webp(data, budget)
    except (_Unreadable, struct.error, IndexError):
        return None
    return None


def without_secrets(data: bytes, finds: Callable[[str], bool]) -> bytes:
    """The image without each piece of its metadata in which ``finds`` finds a secret (in
    one of its readings: the first that does); ``data`` itself when there is none, or
    when the file cannot be read."""
    secret = [p for p in metadata(data) or () if any(map(finds, p.texts))]
    return without(data, secret) if secret else data


def without(data: bytes, pieces: Sequence[Piece]) -> bytes:
    """The image with ``pieces`` (from ``metadata(data)``) left out, the rest as it was."""
    kept: list[bytes] = []
    last = 0
    for piece in sorted(pieces, key=lambda p: p.start):
        kept.append(data[last : piece.start])
        last = piece.end
    kept.append(data[last:])
    out = b"".join(kept)
    if out[:4] == b"RIFF" and out[8:12] == b"WEBP":
        out = _webp_header(data, out, pieces)
    return out


class _Budget:
    """The characters of text still to be read from one image."""

    def __init__(self) -> None:
        self.left = _TEXT_AT_MOST

    def take(self, raw: bytes, codec: str = "latin-1") -> str:
        raw = raw[: max(self.left, 0)]
        text = raw.decode(codec, "replace")
        self.left -= len(raw)
        return text


def _inflate(data: bytes) -> bytes:
    """Compressed text, inflated to at most ``_INFLATE_AT_MOST`` bytes; broken: none."""
    try:
        return zlib.decompressobj().decompress(data, _INFLATE_AT_MOST)
    except zlib.error:
        return b""  # unreadable by anyone: nothing to leave out


# -- PNG ------------------------------------------------------------------------------------


def _png(data: bytes, budget: _Budget) -> list[Piece]:
    pieces: list[Piece] = []
    pos, size = len(PNG_SIGNATURE), len(data)
    while pos < size:
        length, kind = struct.unpack_from(">I4s", data, pos)
        end = pos + 12 + length  # length, type, data, CRC
        if end > size:
            raise _Unreadable(kind)
        if kind in _PNG_TEXT:
            body = data[pos + 8 : pos + 8 + length]
            pieces.append(Piece(pos, end, _png_texts(kind, body, budget)))
        pos = end
        if kind == b"IEND":
            break
    else:
        raise _Unreadable("no IEND")
    return pieces


def _png_texts(kind: bytes, body: bytes, budget: _Budget) -> tuple[str, ...]:
    if kind == b"eXIf":
        return _exif_texts(body, budget)
    keyword, _, rest = body.partition(b"\0")
    name = keyword.decode("latin-1")
    if kind == b"tEXt":
        return (f"{name}: {budget.take(rest)}",)
    if kind == b"zTXt":  # a compression method byte, then zlib data
        return (f"{name}: {budget.take(_inflate(rest[1:]))}",)
    # iTXt: a compression flag and method, a language tag, a translated keyword, the text
    compressed = rest[:1] == b"\x01"
    language, _, rest = rest[2:].partition(b"\0")
    translated, _, text = rest.partition(b"\0")
    text = _inflate(text) if compressed else text
    title = translated.decode("utf-8", "replace")
    return (f"{name} {title}: {budget.take(text, 'utf-8')}",)


# -- JPEG -----------------------------------------------------------------------------------


def _jpeg(data: bytes, budget: _Budget) -> list[Piece]:
    """Its segments up to the first scan (the metadata comes before the picture)."""
    pieces: list[Piece] = []
    pos, size = 2, len(data)
    while pos < size:
        if data[pos] != 0xFF:
            raise _Unreadable(pos)
        marker = data[pos + 1]
        if marker == 0xFF:  # a fill byte
            pos += 1
            continue
        if marker in (0x01, 0xD8) or 0xD0 <= marker <= 0xD7:  # markers without a length
            pos += 2
            continue
        if marker in (0xD9, 0xDA):  # the end, or the start of a scan: the picture
            return pieces
        (length,) = struct.unpack_from(">H", data, pos + 2)
        end = pos + 2 + length
        if length < 2 or end > size:
            raise _Unreadable(pos)
        if marker in _JPEG_TEXT:
            body = data[pos + 4 : end]
            if marker == 0xE1 and body.startswith(_XMP):
                texts: tuple[str, ...] = (budget.take(body, "utf-8"),)
            elif marker == 0xFE:
                texts = (budget.take(body),)
            else:
                texts = _exif_texts(body, budget)
            pieces.append(Piece(pos, end, texts))
        pos = end
    raise _Unreadable("no scan")


def _exif_texts(body: bytes, budget: _Budget) -> tuple[str, ...]:
    """EXIF's strings, read byte by byte; also without its NULs, which is how a UTF-16
    string (Windows' XPComment, a UserComment in ``UNICODE``) of ASCII letters reads."""
    text = budget.take(body)
    if "\0" not in text:
        return (text,)
    return text, text.replace("\0", "")


# -- GIF ------------------------------------------------------------------------------------


def _gif(data: bytes, budget: _Budget) -> list[Piece]:
    pieces: list[Piece] = []
    flags = data[10]
    pos = 13 + (3 << ((flags & 7) + 1) if flags & 0x80 else 0)  # after the colour table
    while True:
        block = data[pos]
        if block == 0x3B:  # the trailer
            return pieces
        if block == 0x21:  # an extension: a label, then sub-blocks
            label = data[pos + 1]
            end, body = _sub_blocks(data, pos + 2, label in _GIF_TEXT)
            if label in _GIF_TEXT:
                pieces.append(Piece(pos, end, (budget.take(body),)))
            pos = end
        elif block == 0x2C:  # an image: its descriptor, a colour table, LZW data
            flags = data[pos + 9]
            pos += 10 + (3 << ((flags & 7) + 1) if flags & 0x80 else 0)
            pos, _ = _sub_blocks(data, pos + 1, False)
        else:
            raise _Unreadable(pos)


def _sub_blocks(data: bytes, pos: int, keep: bool) -> tuple[int, bytes]:
    """Where a chain of sub-blocks ends (after its empty one), and what they hold."""
    held: list[bytes] = []
    while True:
        n = data[pos]
        if pos + 1 + n > len(data):
            raise _Unreadable(pos)
        if n == 0:
            return pos + 1, b"".join(held)
        if keep:
            held.append(data[pos + 1 : pos + 1 + n])
        pos += 1 + n


# -- WebP -----------------------------------------------------------------------------------


def _webp(data: bytes, budget: _Budget) -> list[Piece]:
    pieces: list[Piece] = []
    (riff,) = struct.unpack_from("<I", data, 4)
    size = 8 + riff
    if size > len(data):
        raise _Unreadable("short")
    pos = 12
    while pos + 8 <= size:
        kind, length = struct.unpack_from("<4sI", data, pos)
        end = pos + 8 + length + (length & 1)  # a chunk is padded to an even size
        if pos + 8 + length > size:
            raise _Unreadable(kind)
        if kind in _WEBP_TEXT:
            body = data[pos + 8 : pos + 8 + length]
            texts = (budget.take(body, "utf-8"),) if kind == b"XMP " else _exif_texts(body, budget)
            pieces.append(Piece(pos, min(end, size), texts))
        pos = end
    return pieces


def _webp_header(data: bytes, out: bytes, pieces: Sequence[Piece]) -> bytes:
    """The RIFF size of what is left, and the extended header's flags without the kinds
    of metadata left out."""
    header = bytearray(out)
    struct.pack_into("<I", header, 4, len(out) - 8)
    if header[12:16] == b"VP8X" and len(header) > 20:
        for piece in pieces:
            header[20] &= ~_WEBP_TEXT[data[piece.start : piece.start + 4]] & 0xFF
        for piece in metadata(bytes(header)) or ():  # a kind still there keeps its flag
            header[20] |= _WEBP_TEXT[bytes(header[piece.start : piece.start + 4])]
    return bytes(header)
