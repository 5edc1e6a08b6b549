"""Private keys as tools show them (review27 F1): behind line numbers (Claude Code's Read,
``cat -n``, bat, grep), quoted, in a string, cut short, without their first or last armour
line. Every line of the key's body goes, not only its first armour line; a certificate, a
public key or a signature stays in every layout.

The keys are random base64 built at test time behind the first bytes a key of each kind
begins with in DER or OpenSSH's format (public facts): none is a real key.
"""

from __future__ import annotations

import json
import random
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from exporter.redact import redact_text

B64 = string.ascii_letters + string.digits + "+/"
# How each kind of key's base64 begins (the DER header a tool cannot change), and its
# line length: what a key whose first armour line was cut off is known by.
KINDS = {
    "RSA PRIVATE KEY": ("MIIEowIBAAKCAQEA", 64),
    "PRIVATE KEY": ("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", 64),
    "EC PRIVATE KEY": ("MHcCAQEEI", 64),
    "ENCRYPTED PRIVATE KEY": ("MIIFLTBXBgkqhkiG9w0BBQ0w", 64),
    "OPENSSH PRIVATE KEY": ("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAA", 70),
}
SEEDS = st.integers(0, 2**32).map(random.Random)  # (not st.randoms: it gives "aaaa…" keys)
# What a tool puts before each line of a file it shows (``n`` counts from 1).
LAYOUTS = {
    "claude-read": lambda n: f"{n:>6}→",
    "cat-n": lambda n: f"{n:>6}\t",
    "opencode": lambda n: f"{n:05d}| ",
    "pipe": lambda n: f"{n:>6}|",
    "quote": lambda n: "> ",
    "grep-r": lambda n: "keys/id_rsa:",
    "grep-rn": lambda n: f"keys/id_rsa:{n}:",
    "grep-long-path": lambda n: f"/home/dev/projects/a-rather-long-project/deploy/keys/id:{n}:",
    "line-n": lambda n: f"line {n}: ",
    "bat": lambda n: f"{n:>4} │ ",
    "less-n": lambda n: f"{n:>8} ",
    "spaces-number": lambda n: " " * (n % 9) + f"{n} ",
    "diff": lambda n: "+",
    "log": lambda n: "2026-12-07T03:00:00.123Z stdout F ",
    "plain": lambda n: "",
}


def key_lines(rng: random.Random, kind: str, lines: int) -> list[str]:
    start, width = KINDS[kind]
    body = start + "".join(rng.choice(B64) for _ in range(width * lines - len(start) - 7))
    body += "".join(rng.choice(B64) for _ in range(3)) + "AAA="  # a short last line
    return [body[i : i + width] for i in range(0, len(body), width)]


def armoured(kind: str, body: list[str]) -> list[str]:
    return [f"-----BEGIN {kind}-----", *body, f"-----END {kind}-----"]


def laid_out(lines: list[str], layout: str, first: int = 1) -> str:
    prefix = LAYOUTS[layout]
    return "\n".join(prefix(n) + line for n, line in enumerate(lines, first))


def leaked(out: str, body: list[str]) -> list[str]:
    """The pieces of the key's body still in ``out``: 12 characters of each line."""
    return [line[-12:] for line in body if len(line) >= 12 and line[-12:] in out]


# -- a whole key, in every layout -----------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(sorted(KINDS)), st.integers(2, 30), SEEDS)
def test_every_line_of_a_key_goes_whatever_prefix_each_line_has(kind, lines, rng):
    body = key_lines(rng, kind, lines)
    for layout in LAYOUTS:
        text = "Read the file:\n" + laid_out(armoured(kind, body), layout) + "\nThat is the key."
        out = redact_text(text)
        assert leaked(out, body) == [], layout
        assert out.startswith("Read the file:\n") and out.endswith("\nThat is the key.")


def test_claude_codes_read_of_a_4096_bit_key_is_redacted_whole():
    rng = random.Random(4096)
    body = key_lines(rng, "RSA PRIVATE KEY", 50)  # 3.2 KB: past any keyword's stretch
    numbered = laid_out(armoured("RSA PRIVATE KEY", body), "claude-read")
    out = redact_text(numbered + "\n    53→")
    assert out == "     1→[REDACTED:private-key]\n    53→"


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(sorted(KINDS)), st.integers(2, 12), SEEDS)
def test_a_key_in_a_string_html_a_list_or_escaped_json_is_redacted(kind, lines, rng):
    body = key_lines(rng, kind, lines)
    block = armoured(kind, body)
    for text in (
        "\n".join(f'    "{line}\\n"' for line in block),  # a string's lines in source code
        "<pre>" + "<br>".join(block) + "</pre>",
        "<pre>" + "<br/>\n".join(block) + "</pre>",
        json.dumps(block),  # a list of the file's lines
        json.dumps({"output": laid_out(block, "claude-read")}),  # JSON of a tool's result
        json.dumps(json.dumps({"output": "\n".join(block)})),  # JSON in a JSON string
        "\r\n".join(block),
        '<key value="' + "&#10;".join(block) + '"/>',
    ):
        out = redact_text(text)
        assert leaked(out, body) == [], text[:80]


# -- a key cut short, or without its first armour line ---------------------------------


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(sorted(KINDS)),
    st.sampled_from(sorted(LAYOUTS)),
    st.integers(1, 20),
    SEEDS,
)
def test_a_key_cut_off_before_its_end_loses_every_line_shown(kind, layout, shown, rng):
    body = key_lines(rng, kind, 24)[:shown]
    text = laid_out([f"-----BEGIN {kind}-----", *body], layout)
    out = redact_text(text + "\n... (output truncated)")
    assert leaked(out, body) == []
    assert out.endswith("\n... (output truncated)")


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(sorted(KINDS)), st.integers(1, 63), SEEDS)
def test_a_key_cut_inside_a_line_loses_that_line_too(kind, cut, rng):
    body = key_lines(rng, kind, 10)[:4]
    body[-1] = body[-1][:cut]  # the output stops inside the fourth line
    # A piece of a line of base64: a digit, + or / in it, or a capital after its start. (Not
    # a word such as "ok" or "Done" on the line after a key cut where a line ends.)
    base64ish = any(not c.isalpha() or c.isupper() for c in body[-1][1:])
    for layout in ("claude-read", "plain", "opencode", "bat", "spaces-number"):
        out = redact_text(laid_out([f"-----BEGIN {kind}-----", *body], layout))
        assert leaked(out, body) == []
        assert out.endswith("[REDACTED:private-key]") or not base64ish


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(sorted(KINDS)),
    st.sampled_from(sorted(LAYOUTS)),
    st.booleans(),
    SEEDS,
)
def test_a_key_without_its_first_armour_line_is_known_by_how_it_begins(kind, layout, end, rng):
    body = key_lines(rng, kind, 12)
    lines = [*body, f"-----END {kind}-----"] if end else body[:8]  # tail -n +2, or a part
    out = redact_text(laid_out(lines, layout, first=2) + "\nok")
    assert leaked(out, body) == []
    assert out.endswith("\nok")


# A DSA key in PKCS#8 (``openssl genpkey -algorithm DSA``): its DER names the DSA algorithm
# (1.2.840.10040.4.1) where an RSA one's names RSA.
DSA_PKCS8 = "MIIBWgIBADCCATMGByqGSM44BAEw"


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(sorted(LAYOUTS)), SEEDS)
def test_a_dsa_key_in_pkcs8_without_its_armour_is_known_by_how_it_begins(layout, rng):
    body = DSA_PKCS8 + "".join(rng.choice(B64) for _ in range(64 * 6 - len(DSA_PKCS8)))
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    out = redact_text(laid_out(lines, layout, first=2) + "\nok")
    assert leaked(out, lines) == []
    assert out.endswith("\nok")


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(sorted(KINDS)),
    st.sampled_from(sorted(LAYOUTS)),
    st.integers(2, 10),
    SEEDS,
)
def test_the_end_of_a_key_before_its_last_armour_line_is_redacted(kind, layout, shown, rng):
    body = key_lines(rng, kind, 12)[-shown:]  # tail -n 6 id_rsa: no first line, no DER start
    text = "$ tail id_rsa\n" + laid_out([*body, f"-----END {kind}-----"], layout, first=7)
    out = redact_text(text)
    assert leaked(out, body) == []
    assert out.startswith("$ tail id_rsa\n")


def test_a_putty_key_loses_its_private_lines():
    rng = random.Random(9)
    public = "AAAAC3NzaC1lZDI1NTE5AAAAI" + "".join(rng.choice(B64) for _ in range(23))
    private = ["".join(rng.choice(B64) for _ in range(64)) for _ in range(3)] + ["AAAAB3Nz"]
    ppk = "\n".join(
        [
            "PuTTY-User-Key-File-3: ssh-ed25519",
            "Encryption: none",
            "Comment: dev@host",
            "Public-Lines: 1",
            public,
            f"Private-Lines: {len(private)}",
            *private,
            "Private-MAC: " + "".join(rng.choice("0123456789abcdef") for _ in range(64)),
        ]
    )
    for layout in ("plain", "claude-read", "grep-rn"):
        out = redact_text(laid_out(ppk.split("\n"), layout))
        assert leaked(out, private) == []
        assert public in out  # the public half stays
        assert "Private-Lines: 4" in out


# -- what stays ---------------------------------------------------------------------------

OTHER_BLOCKS = ("CERTIFICATE", "PUBLIC KEY", "RSA PUBLIC KEY", "PGP SIGNATURE",
                "PGP PUBLIC KEY BLOCK", "CERTIFICATE REQUEST", "X509 CRL")  # fmt: skip


def other_body(rng: random.Random, lines: int) -> list[str]:
    # A certificate's DER begins with two SEQUENCEs (``MIIC…CCA…``), a public key's with
    # its algorithm: never a private key's version number.
    body = "MIIDdzCCAl+gAwIBAgIE" + "".join(rng.choice(B64) for _ in range(64 * lines - 20))
    return [body[i : i + 64] for i in range(0, len(body), 64)]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(OTHER_BLOCKS), st.integers(1, 30), st.integers(0, 3), SEEDS)
def test_a_certificate_public_key_or_signature_is_never_redacted(kind, lines, cut, rng):
    block = [f"-----BEGIN {kind}-----", *other_body(rng, lines), f"-----END {kind}-----"]
    # Whole, without its first armour line, without its last, or without both.
    block = block[1 if cut & 1 else 0 : -1 if cut & 2 else None]
    for layout in LAYOUTS:
        text = laid_out(block, layout)
        assert redact_text(text) == text, layout
        bundle = "\n".join([text] * 3)
        assert redact_text(bundle) == bundle, layout


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(LAYOUTS)), st.booleans(), SEEDS)
def test_a_certificate_beside_a_key_stays_and_the_key_goes(layout, key_first, rng):
    cert = ["-----BEGIN CERTIFICATE-----", *other_body(rng, 8), "-----END CERTIFICATE-----"]
    body = key_lines(rng, "PRIVATE KEY", 10)
    blocks = [armoured("PRIVATE KEY", body), cert]
    out = redact_text(laid_out([*blocks[not key_first], *blocks[key_first]], layout))
    assert leaked(out, body) == []
    assert all(line in out for line in cert)


def test_code_that_names_the_armour_lines_stays():
    head, tail = "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----"
    for code in (
        f'PEM_HEADER = "{head}"\nPEM_FOOTER = "{tail}"\n',
        f'if line.startswith("{head}"):\n    inside = True\n'
        f'elif line.startswith("{tail}"):\n    inside = False\n',
        f"const KEY_RE = /{head}[\\s\\S]+?{tail}/;",
    ):
        assert redact_text(code) == code


def test_base64_that_is_no_key_stays():
    rng = random.Random(5)
    lines = ["".join(rng.choice(B64) for _ in range(64)) for _ in range(40)]
    for text in (
        "\n".join(lines),  # openssl base64 of some file
        laid_out(lines, "claude-read"),
        "\n".join(f"{line}  file{i}.txt" for i, line in enumerate(lines)),
        "\n".join(lines) + "\n-----END CERTIFICATE-----",
    ):
        assert redact_text(text) == text
