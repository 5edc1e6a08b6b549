"""A value under a key's name the secret words do not cover (review47 M1): Laravel's
``APP_KEY``, ``AZURE_STORAGE_KEY``, Airflow's ``fernet_key``, WordPress's ``NONCE_KEY`` and
``AUTH_SALT``. Such a name is as often a lookup's (``CACHE_KEY``, ``sort_key``, DynamoDB's
``hash_key``) or a public key's (``VAPID_PUBLIC_KEY``, reCAPTCHA's ``SITE_KEY``): its value
is a secret only when it looks like a key, long and random, and its name is none of those."""

from __future__ import annotations

import re

from .redact_names import NAMES_A_THING, QUOTE, SECRET_WORD, shannon_entropy

# A key's name that the secret words (``api_key``, ``token``, ``secret``: ``SECRET_WORD``)
# miss: ``APP_KEY``, ``fernet_key``, ``AUTH_SALT``, and a personal access token's
# (``AZURE_DEVOPS_EXT_PAT``, ``ADO_PAT``, ``PAT``). Its value is judged as a key's
# (``bare_key``); a name with a secret word is judged as such a name always was.
KEY_WORD = r"(?:[A-Za-z0-9]_(?:KEY|key)|(?i:salt|accountkey|storagekey)|(?:\b|_)PAT\b)"
_SECRET_WORDS = re.compile(SECRET_WORD)
_KEY_WORDS = re.compile(KEY_WORD)
# Words before ``_KEY`` that say the value is no secret: a public key's, a lookup's.
_NOT_SECRET = re.compile(
    r"(?i)public|publishable|(?:^|[^a-z])pub(?:$|[^a-z])|site|idempoten|cache|sort|partition"
    r"|primary|foreign|dedup|routing|object|bucket|lookup|index|(?:hash|range)_?key|group|row|column"
    r"|field|map|dict|hotkey|shortcut|ssh|gpg|pgp|license_?key_?id"
)
_NAME = re.compile(r"([\w.-]+)[^\w.-]*$")  # the name's last word, before ``=``, ``: ``, ``', '``
_HEX = re.compile(r"[0-9a-fA-F-]+")  # (a UUID too)
_PATH_PART = re.compile(r"[a-z][a-z0-9_.-]{2,}|[0-9]{1,4}")  # a folder's or file's name
_SHORTEST = 16  # characters: a key's value, not a word or a short id
_ENTROPY = 3.5  # bits per character: random, not a sentence or a slug


def key_named_only(named: str) -> bool:
    """Is ``named`` (what a generic rule matched before a value) a secret's name only as a
    key's (``APP_KEY=``, ``salt:``), with none of the secret words before? (Not the rule's
    other forms, which name no key: Docker's ``"auth": "…"``, ``::add-mask::…``.)"""
    return _KEY_WORDS.search(named) is not None and _SECRET_WORDS.search(named) is None


def bare_key(name: str, value: str) -> bool:
    """Is ``value``, under ``name`` (the text before it, the name whole), a key: long,
    random, neither hex (a GPG key's fingerprint, a hash) nor under a name that says it is
    public or a lookup's?"""
    m = _NAME.search(name)
    if m is None or _NOT_SECRET.search(m.group(1)):
        return False
    body = value.removeprefix("base64:").rstrip("=")
    if len(body) < _SHORTEST or _HEX.fullmatch(body):
        return False
    if "/" in body:  # a path or a key's place of words (``uploads/2026/report.pdf``)
        if any(_PATH_PART.fullmatch(part) for part in body.split("/")):
            return False
    elif NAMES_A_THING.match(body):
        return False  # a model's or a version's name: ``claude-sonnet-4-5-20250929``
    return shannon_entropy(body) >= _ENTROPY


def query_form(word: str, shortest: int, longest: int) -> str:
    """A value named in a URL's query or a form's body (``?password=…&next=…``,
    ``user=me&password=…&remember=true``): it ends at the next ``&`` or ``#``, so the
    parameters after it stay (an ``&`` in a password there is written ``%26``)."""
    return rf"[?&][\w.-]{{0,30}}{word}[\w.-]{{0,20}}=([^\s&#\"'`<>]{{{shortest},{longest}}})"


def spaced_forms(word: str) -> tuple[str, ...]:
    """More forms text names a value in (review47 M4), for ``named_forms``' ``before``: a
    Dockerfile's ``ENV NAME value`` (a space, no ``=``), and YAML's block scalar
    (``password: |`` or ``>-``, the value on the indented line below)."""
    return (
        rf"(?m:^)[ \t]*ENV[ \t]+[\w.-]{{0,30}}{word}[\w.-]{{0,20}}[ \t]+",
        rf"{word}[\w-]{{0,20}}{QUOTE}[ \t]*:[ \t]*[|>][-+0-9]{{0,2}}[ \t]*\r?\n[ \t]+",
    )


# A name's cell of a Markdown table's row, before its value's (``|token|``, ``| `KEY` |``).
_TABLE_CELL = re.compile(rb"\|[ \t]*`?\Z")


def cell_end(data: bytes, named_from: int, start: int, end: int) -> int:
    """Where a generic rule's value ``start``..``end`` (named from ``named_from``) ends: at
    its cell's ``|`` when a Markdown table's row names it, written without spaces
    (``|token|…|``; with them, ``| token | … |``, a space ends it)."""
    if _TABLE_CELL.search(data, named_from, start) is None:
        return end
    bar = data.find(b"|", start, end)
    return end if bar == -1 else bar
