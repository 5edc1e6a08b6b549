"""The private-key rule's pattern: a key's armour lines and the body between them, in
whatever layout a tool shows it (line numbers, quotes, escapes, HTML breaks), a key cut off
before its last armour line, and a body whose first armour line was cut. Certificates,
public keys and signatures begin otherwise, and stay."""

from __future__ import annotations

PRIVATE_KEY_HEAD = r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----"
PRIVATE_KEY_TAIL = r"-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----"
# A key's body as a tool shows it: each line behind a prefix (Claude Code's Read
# ``     2→``, ``00002| ``, ``> ``, grep's ``keys/id_rsa:2:``, bat's ``   2 │ ``, a string's
# quote) and before a short suffix (``\n"``, ``",``). A line ends with a newline, its JSON or
# C escape (escaped again: ``\\n``), an HTML break or entity, or the quotes and comma between the
# items of a list of lines. A key line is a run of 40 base64 characters or more (64 in PEM,
# 70 in OpenSSH) after its prefix; only the last one is shorter.
_KEY_SEP = (
    r"(?:\r?\n|(?:\\{1,3}r)?\\{1,3}n|<[Bb][Rr][ \t]*/?>|(?:&#(?:13|x[dD]);)?&#(?:10|x[aA]);"
    r"|\\{0,3}[\"'],[ \t]*\\{0,3}[\"'])"
)
_KEY_SUFFIX = r"[^\n]{0,12}?"
_KEY_LINE = _KEY_SUFFIX + _KEY_SEP + r"[^\n]*?[A-Za-z0-9+/]{40,}={0,3}"
# A key's last line, cut short (a tool's output cut off), behind a line number or nothing:
# a line of its own with a digit, ``+``, ``/`` or a capital after its start (not ``ok``).
_KEY_LAST = (
    _KEY_SUFFIX + _KEY_SEP + r"[ \t0-9]{0,16}(?:[|:>\t]|→|│)?[ \t]?"
    r"[A-Za-z0-9+/]*(?:[0-9+/]|[A-Za-z][A-Z])[A-Za-z0-9+/]*={0,3}(?m:$)"
)
# Between a key's armour lines, whatever the layout puts there (line numbers, quotes, a
# header of an encrypted key or PGP's, blank lines) around its lines (a run of 16 or more):
# not another block's armour (``--``), and no code (brackets, ``;``), so the code between a
# parser's two literals, or two constants (``HEAD = "-----BEGIN…"``), stays.
_KEY_BETWEEN = r"(?:[^(){};-]|-[^(){};-]|&#(?:1[03]|x[aAdD]);)*?"
_KEY_BODY = _KEY_BETWEEN + r"[A-Za-z0-9+/]{16,}" + _KEY_BETWEEN + "-?"
# Up to the last armour line from a key line: its last, short, line and the armour's prefix.
_KEY_TO_END = (
    _KEY_SUFFIX
    + r"(?:"
    + _KEY_SEP
    + r"[^\n]{0,24}?[A-Za-z0-9+/]*={0,3}"
    + _KEY_SUFFIX
    + ")?"
    + _KEY_SEP
    + r"[^\n]{0,64}?-?"
    + PRIVATE_KEY_TAIL
)
# How a key's DER (PKCS#1, PKCS#8, SEC1, encrypted PKCS#8) or OpenSSH's format begins in
# base64: a key body whose armour line was cut off (``tail -n +2 id_rsa``). Certificates and
# public keys begin otherwise (``MIIC…CCAe``, ``MIIBIjANBgkq…AOCAQ8A``, ``AAAAC3NzaC1…``).
_B64C = r"[A-Za-z0-9+/]"
KEY_BODY_STARTS = {
    "IBAAK": rf"MII{_B64C}{{2}}[AQgw]IBAAK[BC]",  # RSA (PKCS#1), DSA
    "IBADANBgkqhkiG9w0BAQEFAAS": rf"MII{_B64C}{{2}}[AQgw]IBADANBgkqhkiG9w0BAQEFAAS",  # PKCS#8
    "GByqGSM49AgEG": rf"MI{_B64C}{{2}}AgEAMB[AM]GByqGSM49AgEG",  # EC, PKCS#8
    "GByqGSM44BAE": rf"MII{_B64C}{{2}}[AQgw]IBADCCA{_B64C}{{2}}GByqGSM44BAE",  # DSA, PKCS#8
    "CAQEEI": rf"M{_B64C}{{2}}CAQEEI",  # EC P-256, SEC1
    "AgEBBD": rf"MI[GH]{_B64C}AgEBBD",  # EC P-384, SEC1
    "AgEBBE": rf"MI[GH]{_B64C}AgEBBE",  # EC P-521, SEC1
    "CAQAwBQYDK2V": rf"M{_B64C}{{2}}CAQAwBQYDK2V[wuxv]",  # Ed25519, X25519, Ed448, X448
    "BgkqhkiG9w0BBQ0w": rf"MII{_B64C}{{5}}BgkqhkiG9w0BBQ0w",  # encrypted PKCS#8
    "b3BlbnNzaC1rZXktdjE": r"b3BlbnNzaC1rZXktdjE",  # "openssh-key-v1"
}
PRIVATE_KEY = (
    PRIVATE_KEY_HEAD
    + "(?:"
    # The armour lines and the key between them, on lines of their own or on one.
    + r"[A-Za-z0-9+/=\s\\:,.\"'-]*?"
    + PRIVATE_KEY_TAIL
    + "|"
    + _KEY_BODY
    + PRIVATE_KEY_TAIL
    # Cut off before its last armour line: every key line that follows.
    + r"|(?:(?:\s|\\n|\\r)*[A-Za-z0-9+/=]{16,})+(?:"
    + _KEY_LAST
    + ")?"
    + "|(?:"
    + _KEY_LINE
    + ")+(?:"
    + _KEY_LAST
    + ")?)"
    # A body without its first armour line: from how it begins, or up to its last one.
    + "|(?:"
    + "|".join(KEY_BODY_STARTS.values())
    + ")[A-Za-z0-9+/]*={0,3}"
    + "(?:"
    + _KEY_LINE
    + ")*(?:"
    + _KEY_LAST
    + ")?"
    + r"|([A-Za-z0-9+/]{40,}={0,3}(?:"
    + _KEY_LINE
    + ")*"
    + _KEY_TO_END
    + ")"
    # PuTTY's .ppk: the lines after ``Private-Lines: N``.
    + r"|Private-Lines:[ \t]*[0-9]{1,4}((?:"
    + _KEY_LINE.replace("{40,}", "{16,}")
    + ")+(?:"
    + _KEY_LAST
    + ")?)"
)
