"""Tokens written broken or encoded (review27 F8): split by a shell continuation or a
quoted-printable soft break, with an HTML entity, a JSON ``\\u`` escape or URL encoding
inside. Each layout is checked to be one by a real parser (``shlex``, ``quopri``, ``html``,
``json``, ``urllib``): what it reads back is the token. No piece of the token survives
redaction (``redact_views``). All tokens are synthetic."""

from __future__ import annotations

import html
import json
import quopri
import re
import subprocess
import urllib.parse
from collections import Counter
from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st
from test_redact import SAMPLES, Gen

from exporter import redact_views
from exporter.redact import redact_text
from exporter.redact_rules import RULES
from exporter.redact_views import view

# Rules whose sample is the token alone, long enough to cut in two pieces of 6 or more.
TOKEN_RULES = sorted(
    r.id for r in RULES if (s := SAMPLES[r.id](Gen(5)))[0] == s[1] and len(s[1]) >= 16
)


def token_of(rule_id: str) -> str:
    return SAMPLES[rule_id](Gen(len(rule_id)))[1]


def no_piece_left(out: str, token: str, cut: int) -> None:
    """Neither side of the cut (6 characters of it, next to the cut and at the ends) is in
    ``out`` (its placeholders aside: they name a rule, ``github-pat``)."""
    out = re.sub(r"\[REDACTED:[\w.-]+\]", "#", out)
    head, tail = token[:cut], token[cut:]
    for piece in (head[-6:], head[:6], tail[:6], tail[-6:]):
        assert piece not in out, (piece, out)


def shell_words(commands: list[str]) -> list[list[str]]:
    """Each command's words as bash reads them (the real parser: Python's ``shlex`` keeps
    a continuation's line break)."""
    script = "".join(f"printf '%s\\0' {c}\nprintf '\\1'\n" for c in commands)
    out = subprocess.run(["bash"], input=script.encode(), capture_output=True, check=True).stdout
    return [w.decode().split("\0")[:-1] for w in out.split(b"\1")[:-1]]


def test_a_token_split_by_a_shell_continuation_goes_whole():
    """Split at every third place of every rule's token, in a quoted argument and in a
    bare one: bash reads the token whole; redaction leaves no piece of it."""
    cases = []
    for rule_id in TOKEN_RULES:
        token = token_of(rule_id)
        for cut in range(6, len(token) - 6, 3):
            if "'" in token or '"' in token or "\\" in token or "$" in token or " " in token:
                continue  # (a word bash would read otherwise; the URL-encoded test has ``$``)
            cases.append((token, cut, f'-H "X-Key: {token[:cut]}\\\n{token[cut:]}"'))
            cases.append((token, cut, f"-H X-Key:{token[:cut]}\\\n{token[cut:]}"))
    words = shell_words([command for _token, _cut, command in cases])
    assert len(cases) > 500
    for (token, cut, command), read in zip(cases, words, strict=True):
        assert read[1] in (f"X-Key: {token}", f"X-Key:{token}")
        out = redact_text(f"curl {command} https://api.example.com")
        no_piece_left(out, token, cut)
        assert out.startswith("curl -H") and out.endswith(" https://api.example.com")


@settings(max_examples=200, deadline=None)
@given(rule_id=st.sampled_from(TOKEN_RULES), at=st.floats(0.2, 0.8))
def test_a_token_cut_by_a_quoted_printable_soft_break_goes_whole(rule_id, at):
    token = token_of(rule_id)
    cut = max(6, min(len(token) - 6, int(len(token) * at)))
    if "=" in token:  # (a token's own ``=`` is written ``=3D`` in quoted-printable)
        return
    body = f"Your key: {token[:cut]}=\n{token[cut:]}\nThanks"
    assert token in quopri.decodestring(body.encode()).decode()
    no_piece_left(redact_text(body), token, cut)


@settings(max_examples=200, deadline=None)
@given(
    rule_id=st.sampled_from(TOKEN_RULES),
    layout=st.sampled_from(["html-dec", "html-hex", "html-named", "json", "url", "url-all"]),
)
def test_an_escaped_token_goes_whole(rule_id, layout):
    token = token_of(rule_id)
    marks = [c for c in ("_:./+" if layout == "html-named" else "_-:./+") if c in token]
    if not marks and layout != "url-all":
        return
    mark = marks[0] if marks else ""

    def escaped(c: str) -> str:
        if layout == "html-dec":
            return f"&#{ord(c)};"
        if layout == "html-hex":
            return f"&#x{ord(c):x};"
        if layout == "html-named":
            names = {"_": "lowbar", ":": "colon", ".": "period", "/": "sol", "+": "plus"}
            return f"&{names[c]};"
        if layout == "json":
            return f"\\u{ord(c):04x}"
        return f"%{ord(c):02X}"

    if layout == "url-all":
        text = "q=" + urllib.parse.quote(token, safe="")
        assert urllib.parse.unquote(text[2:]) == token
    else:
        text = f"token is {token.replace(mark, escaped(mark))} ok"
        decoded = (json.loads(f'"{text}"') if layout == "json" else
                   urllib.parse.unquote(text) if layout == "url" else html.unescape(text))  # fmt: skip
        assert token in decoded
    counts: Counter[str] = Counter()
    out = redact_text(text, counts)
    cut = token.index(mark) if mark else len(token) // 2
    no_piece_left(out, token, max(6, min(cut, len(token) - 6)))
    assert sum(counts.values()) >= 1


def test_the_second_half_of_a_token_whose_first_half_matched_is_not_left_bare():
    token = token_of("stripe-key")
    text = f"STRIPE={token[:30]}\\\n{token[30:]} next"
    out = redact_text(text)
    assert token[30:] not in out and out.endswith(" next")


def test_pieces_read_in_a_text_without_a_token_change_nothing():
    """What is no token stays as written, escapes and breaks with it."""
    for text in (
        "SELECT a FROM t WHERE x =\n  1",
        "echo one \\\n  two three",
        "caf&eacute; &amp; bar &#95;x 100%25 done \\u00e9t\\u00e9",
        "https://example.com/search?q=a%2Fb%3Ac&lang=en",
        'x = "line%3Dvalue"\ny =\nz',
    ):
        assert redact_text(text) == text


def test_a_view_maps_each_character_back_to_where_it_stands():
    text = "ab\\\n  cd&#95;e%3Af"
    seen = view(text)
    assert seen is not None and seen.text == "abcd_e:f"
    assert seen.span(0, 8) == (0, len(text))
    assert text[slice(*seen.span(4, 5))] == "&#95;" and text[slice(*seen.span(2, 3))] == "c"
    assert seen.across(1, 3) and not seen.across(2, 4)
    assert view("no pieces here") is None and view("100% sure") is None


def _whole_view(text: str) -> str:
    """``text`` redacted as it was before long views were read in stretches: the rules
    read the whole view."""
    with patch.object(redact_views, "_WHOLE_UP_TO", 1 << 62):
        return redact_text(text)


def test_a_long_view_is_read_only_around_its_pieces():
    """A text of a megabyte with one piece in it: the rules read a few kB around the
    piece, from the start of a line to the end of one; a line too long to reach its ends
    is cut, and says so."""
    lines = [f"line {i}: nothing to see here, just words" for i in range(25_000)]
    lines[12_500] = "join \\\n  these"
    seen = view("\n".join(lines))
    assert seen is not None and len(seen.text) > 1_000_000
    ((start, end, cut),) = seen.windows()
    piece = seen.text.index("join ")
    assert start < piece < end and end - start < 4 * redact_views._AROUND
    assert seen.text[start - 1] == "\n" and seen.text[end] == "\n" and not cut
    one_line = view("x" * 500_000 + "&#95;" + "y" * 500_000)
    assert one_line is not None
    ((start, end, cut),) = one_line.windows()
    assert 0 < start and end < len(one_line.text) and cut
    assert view("short \\\n  text").windows() == [(0, len("short text"), False)]


@settings(max_examples=60, deadline=None)
@given(
    rule_id=st.sampled_from(TOKEN_RULES),
    layout=st.sampled_from(["shell", "soft", "json", "html"]),
    line=st.sampled_from([40, 900, 5000, 200_000]),
    where=st.floats(0.0, 1.0),
    shift=st.integers(-9000, 9000),
)
def test_a_long_text_is_redacted_as_when_the_whole_view_is_read(
    rule_id, layout, line, where, shift
):
    """Pieces far apart in a long text (lines short and long), a split or escaped token at
    one of them, another near the edge of its stretch: the same redaction as reading the
    whole view, and no piece of the token left."""
    token = token_of(rule_id)
    cut = len(token) // 2
    if layout == "soft" and "=" in token:
        return
    broken = {
        "shell": f"{token[:cut]}\\\n  {token[cut:]}",
        "soft": f"{token[:cut]}=\n{token[cut:]}",
        "json": f"{token[:cut]}\\u{ord(token[cut]):04x}{token[cut + 1 :]}",
        "html": f"{token[:cut]}&#{ord(token[cut])};{token[cut + 1 :]}",
    }[layout]
    filler = ("word " * (line // 5)).strip()
    body = "\n".join([filler] * max(2, 300_000 // (line + 1)))
    at = int(len(body) * where)
    other = max(0, min(len(body), at + shift))
    first, second = sorted((at, other))
    text = body[:first] + f" key: {broken} " + body[first:second] + " 100%3A here " + body[second:]
    out = redact_text(text)
    assert out == _whole_view(text)
    no_piece_left(out, token, cut)


def test_a_token_a_stretch_cuts_short_is_found_in_the_whole_view():
    """A stretch cut inside a line ends inside a long token, which a rule of no fixed
    length matches there cut short: the whole view is read, and the token goes whole."""
    token = "whsec_" + "".join(chr(65 + (i * 7) % 26) + str(i % 10) for i in range(40))
    text = "x" * 100_000 + f" {token[:5]}&#95;{token[6:]} " + "y" * 100_000
    with patch.object(redact_views, "_AROUND", 40):  # its stretch ends inside the token
        out = redact_text(text)
        (window,) = view(text).windows()
    assert window[2] and window[1] < 100_000 + len(token)
    no_piece_left(out, token, 5)
    assert out == _whole_view(text)


_SIGNS = ("%", "&", "\\u", "=\n", "\\\n", "=\r\n", "\\\r\n")


@given(
    st.lists(
        st.one_of(st.sampled_from(["%", "&", "\\", "u", "=", "\n", "\r", " ", "a"]), st.text()),
        max_size=20,
    ).map("".join)
)
def test_a_text_holds_a_sign_where_it_holds_one_of_them(text):
    """``_signs`` looks for a sign of two or three characters only where its first is: it
    answers as a search for each sign would."""
    assert redact_views._signs(text) == any(sign in text for sign in _SIGNS)
