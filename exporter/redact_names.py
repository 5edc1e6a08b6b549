"""What a value's name and shape say about it: whether a tool argument is a secret by the
key it is under (``password``, ``api_key``), a key above it (``credentials:`` over
``prod:`` over ``db: …``), the flag before it or the name/value entry it is in, and whether
the value itself looks like a secret (random enough, not a reference, a path or a
stand-in; a number only as a password). Used by the redaction engine (``redact.py``) on
tool inputs, on the generic assignment rules' matches and on nested keys in text
(``redact_nested.py``)."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from functools import lru_cache
from typing import Any

from .redact_identifiers import code_identifier

PLACEHOLDER = "[REDACTED:{}]"  # what a secret becomes, by its rule's id
# A placeholder found in a text already written (an old title, a recorded fact): its rule's id.
PLACED = re.compile(r"\[REDACTED:([A-Za-z0-9_.-]{1,100})\]")
# Values of generic assignments that are references or stand-ins, not secrets.
STAND_IN = re.compile(
    r"""(?ix) ^(?: \$\{?\w+\}? | \$?\{\{.*\}\} | <[^>]*> | %\(?\w+\)?s? | \*+ | x{3,} | \.{3,}
    | (?:your|my|the)[_-].* | .*(?:example|placeholder|changeme|redacted|dummy).*
    | null | none | nil | true | false | undefined )$"""
)
# The password of a ``user:password`` pair that is none: a word for a password (a manual's
# ``user:password@host``), a documented default (RabbitMQ's ``guest``; GitHub's
# ``x-oauth-basic``, where the token is the user), a reference in another shell's or
# template's syntax (``%DB_PASS%``, ``{password}``, ``[password]``). ``STAND_IN`` and a
# password equal to its user's name (``guest:guest``, ``postgres:postgres``) also count.
_PAIR_STAND_IN = re.compile(
    r"""(?ix) ^(?: (?:(?:your|my|the|db|user)[_-]?)?(?:pass(?:word|wd)?|pwd|pw|secret)
    | guest | x-oauth-basic | %\w+% | \{\w*\} | \[\w+\] )$"""
)
_DRIVE = re.compile(r"[A-Za-z]:[\\/]")  # a Windows path
# A cloud resource's name: AWS's ``arn:…``, Google Cloud's ``projects/p/locations/…`` (a
# KMS key's, a secret's: its place, not its value).
# (A project by its number too: gcloud prints ``projects/123456789/secrets/…``.)
_RESOURCE = re.compile(r"arn:|(?:projects|organizations|folders)/[\w.-]+/[a-z]")
# The rest of an AWS resource's name after its service's (``arn:aws:secretsmanager:`` then
# ``us-east-1:123456789012:secret:prod/db``: the service's name reads as a secret's name).
_ARN_TAIL = re.compile(r"(?:[a-z]{2}(?:-[a-z]+)+-[0-9])?:[0-9]{12}:")
_DOTTED = re.compile(r"[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)+")  # settings.SECRET_KEY
_PLAIN_WORDS = re.compile(r"[a-z_.-]+")  # get_password, bert-base-uncased
# Keys of a JSON value (a tool's input) whose string value is judged like an assignment.
_NAMED_SECRETS = (
    ("generic-password", re.compile(
        r"(?i)password|passwd|passphrase|(?:^|[^a-z])(?:pass|pwd)(?:$|[^a-z])"
        # the word in other languages: German, French, Spanish, Portuguese, Dutch,
        # Russian, Chinese, Japanese, Korean
        r"|passwort|mot_?de_?passe|contrase(?:ñ|n)a|senha|wachtwoord|пароль"
        r"|密码|密碼|パスワード|비밀번호")),
    ("generic-secret", re.compile(
        r"(?i)secret|token|api[_-]?key|access[_-]?key|private[_-]?key|auth[_-]?key|credentials?"
        r"|signing[_-]?key|client[_-]?key|encryption[_-]?key|master[_-]?key"
        r"|authori[sz]ation|cookie|bearer|(?:^|[^a-z])auth(?:$|[^a-z])")),
)  # fmt: skip
# A name that ends with the word for a password (``DB_PASSWORD``, ``pwd``, ``userPwd``,
# ``DB_PASS``, ``userPass``, ``pass``), or in another language. Not ``pass`` in lower case
# after another word: ``first_pass``, ``n_pass`` count passes.
_PASSWORD_LAST = re.compile(
    r"(?:(?i:pass(?:word|wd|phrase|wort))|(?:^|[^A-Za-z])(?i:pwd)|[a-z](?:Pwd|Pass)"
    r"|(?:^|[^A-Za-z])PASS|^(?i:pass)"
    r"|(?i:mot_?de_?passe|contrase(?:ñ|n)a|senha|wachtwoord|пароль)|密码|密碼|パスワード|비밀번호)$"
)
# A number is a password's value (``DB_PASSWORD=93847561``, ``{"password": 20240101}``)
# when it has six digits or more, the shortest value the ``generic-password`` rule takes
# as text, and its name ends with the word: a name that only starts with it is a setting
# about passwords (``password_min_length: 12``, ``password_max_age: 7776000``). A shorter
# number under such a name is as often a count (``n_pass = 1000``) or a year.
_PASSWORD_DIGITS = re.compile(r"[0-9]{6,}")
_NAME_TAIL = " \t\r\n\"'\\:=>"  # what stands between a name and its value in text
# A key that holds secrets under names of their own (``credentials: {prod: {db: …}}``,
# ``secrets: {github: …}``): the plural of a secret's name, alone or after a qualifier
# (``db_credentials``, ``apiKeys``), in snake case. Credentials and passwords are judged
# as passwords, the others as keys. Not ``tokens`` alone (a model's token counts, a
# lexer's, a design system's colours), ``keys`` (a keyboard's) or ``auth``.
_PASSWORD_HOLDERS = ("credentials", "passwords", "passwds", "passphrases")
_KEY_KINDS = ("api", "access", "private", "secret", "signing", "client", "encryption", "master")
_TOKEN_KINDS = ("api", "access", "auth", "refresh", "bearer")
_HOLDERS = re.compile(
    rf"(?:^|_)(?:({'|'.join(_PASSWORD_HOLDERS)})|(secrets|(?:{'|'.join(_KEY_KINDS)})_?keys"
    rf"|(?:{'|'.join(_TOKEN_KINDS)})_?tokens))$"
)
# How every such key ends (``redact_nested`` finds holders in text by it).
HOLDER_TAILS = (*_PASSWORD_HOLDERS, "secrets", "keys", "tokens")
# Words one of which every such key holds, as it may be written (a rule's keywords, found
# in any case): a text without one holds no such key and is not read for one.
HOLDER_WORDS = (
    *_PASSWORD_HOLDERS, "secrets",
    *(f"{kind}{sep}{plural}" for kind in _KEY_KINDS for plural in ("keys", "Keys")
      for sep in ("_", "-", "")),
    *(f"{kind}{sep}{plural}" for kind in _TOKEN_KINDS for plural in ("tokens", "Tokens")
      for sep in ("_", "-", "")),
    "APIKeys", "APITokens",
)  # fmt: skip
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|[-. ]")
# Under such a key, these keys name or describe a secret rather than hold it (docker
# compose's ``file:``, a login's ``username:``, Kubernetes' ``secretName:``), in lower case
# without separators.
_DESCRIBING = frozenset({
    "name", "id", "type", "kind", "file", "filename", "path", "mountpath", "url", "uri",
    "endpoint", "host", "hostname", "server", "port", "user", "username", "login", "email",
    "account", "region", "zone", "project", "description", "comment", "note", "title",
    "label", "provider", "scope", "scopes", "env", "environment", "external", "format",
    "algorithm", "source", "version", "created", "updated", "expires", "expiry",
    "secretname", "keyid", "fingerprint",
})  # fmt: skip
_SPACE_OR_REFERENCE = re.compile(r"\s|^\$|\{\{")
# An argument that names the one after it (``["--password", "…"]``, ``["Authorization",
# "Bearer …"]``): one word, a flag or a header's name.
_NAMING_ITEM = re.compile(r"-{0,2}[A-Za-z][\w.-]{0,40}")
VALUE_KEYS, _NAME_KEYS = ("value", "Value"), ("name", "Name", "key", "Key")


def entry_name(value: Mapping[Any, Any]) -> str | None:
    """The name a name/value entry gives its value (``{"name": "DB_PASSWORD", "value": …}``,
    AWS's ``{"Name": …, "Value": …}``), if it is one."""
    if not any(k in value for k in VALUE_KEYS):
        return None
    return next((value[k] for k in _NAME_KEYS if isinstance(value.get(k), str)), None)


def item_name(items: Any, i: int) -> str | None:
    """The secret's name the argument before item ``i`` gives it: a flag (``["--password",
    …]``) or the first of a pair (``["Authorization", "Bearer …"]``). A word in a command
    line is no name (``kubectl get secret NAME``: NAME is a resource's)."""
    before = items[i - 1] if i else None
    if not isinstance(before, str) or not _NAMING_ITEM.fullmatch(before):
        return None
    if not before.startswith("-") and len(items) != 2:
        return None
    return before if named_secret(before) else None


def stand_in_password(named: str, password: str) -> bool:
    """Is ``password``, after ``named`` (what its rule matched before it: ``amqp://guest:``,
    ``curl -u admin:``), a documented default or a stand-in rather than a secret? The same
    as its user's name, a word for a password, ``guest``, or a reference."""
    user = _PAIR_USER.split(named.removesuffix(":"))[-1]
    return password == user or _PAIR_STAND_IN.match(password) is not None


_PAIR_USER = re.compile(r"[\s/=\"'\\]")  # what stands before a pair's user name


def shannon_entropy(text: str) -> float:
    """Bits per character: about 4 to 6 for random tokens, under 3.5 for most words."""
    if not text:
        return 0.0
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in Counter(text).values())


def plausible_secret(value: str, minimum: float, quoted: bool) -> bool:
    """Whether a value assigned to a secret-sounding name looks like a secret itself."""
    if value.startswith("[REDACTED:") or not any(c.isalpha() for c in value):
        return False  # already redacted; a number is a count or a port, not a secret
    if STAND_IN.match(value):
        return False  # "${DB_PASSWORD}", "<your key>", "***": documentation, not a secret
    if "://" in value or value[0] in "/~." or _DRIVE.match(value) or _RESOURCE.match(value):
        return False  # a URL, a path or a cloud resource's name
    if _ARN_TAIL.match(value):
        return False  # the region and account of an AWS resource's name, and its name
    has_digit = any(c.isdigit() for c in value)
    if not has_digit and _DOTTED.fullmatch(value):
        return False  # a reference to a setting: settings.SECRET_KEY, process.env.TOKEN
    if not quoted and not has_digit and _PLAIN_WORDS.fullmatch(value):
        return False  # an identifier in code, not a literal
    # Without digits, only a long random-looking string is a secret (not "AutoTokenizer"):
    # very random, or letters in both cases that read as no words (``YdsGcvdgHVVTmGzk``).
    entropy = shannon_entropy(value)
    if has_digit:
        return entropy >= minimum
    return entropy >= max(minimum, 4.0) or (entropy >= minimum and random_letters(value))


# The runs of letters a name in camelCase, PascalCase or UPPER case is made of: a word
# (``Tokenizer``, ``auto``, ``HTTP``); a random string of letters is made of short ones.
_LETTER_RUNS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def random_letters(value: str) -> bool:
    """Is ``value`` (base64's ``=`` at its end aside) 14 letters or more, in both cases,
    that read as no words: many short runs of them (a generator's password, base64 that
    happens to hold no digit), not a name in camelCase (``PasswordHasherArgon``)?"""
    body = value.rstrip("=")
    if len(body) < 14 or not body.isascii() or not body.isalpha():
        return False
    if body.islower() or body.isupper():
        return False
    runs = _LETTER_RUNS.findall(body)
    return len(runs) >= 4 and len(body) / len(runs) < 3.5


def named_value(name: str, value: str, entropy: Mapping[str, float | None]) -> str | None:
    """The generic rule (one of ``entropy``'s, with its minimum) a value of a tool's input
    is a secret by, as the value of the key ``name`` (``{"password": "…"}``), if any."""
    rule_id = named_secret(name) if name else None
    if rule_id is None or rule_id not in entropy or describes_secret(name, value):
        return None
    if value.isdigit():
        return rule_id if numeric_password(name, value) else None
    if rule_id == "generic-secret" and code_identifier(value):
        return None  # ``{"token": "GPT2TokenizerFast"}``: a class's name
    return rule_id if plausible_secret(value, entropy[rule_id] or 0.0, quoted=True) else None


@lru_cache(maxsize=4096)  # the same few keys (command, file_path, …) in every tool call
def named_secret(name: str) -> str | None:
    """The generic rule a JSON key calls for (``"password"``, ``"api_key"``), if any."""
    for rule_id, pattern in _NAMED_SECRETS:
        if pattern.search(name):
            return rule_id
    return None


# A name that may only say which secret, or where it is (``secretName: app-tls``,
# ``token_file: …``, ``api_key_env: OPENAI_API_KEY``, ``token_type: Bearer``): its value
# is no secret when it names a thing (``NAMES_A_THING``). ``auth_header: <a token>`` is
# one. Not ``id``: Vault's ``secret_id`` is a credential.
_DESCRIBES = re.compile(
    r"(?:name|path|file|filename|url|uri|type|kind|length|count|env|var|header|ref|policy"
    r"|version)$"
)
# A name for a key's id (``api_key_id``, ``ENCRYPTION_KEY_ID``, ``keyId``): any value under
# it is the id, not the key. (Not ``secret_id``: Vault's is a credential.)
_KEY_ID = re.compile(r"(?:key|token)_?id$")
# A name for a hash or a digest (``secret_hash``, ``password_sha256``): a hex digest under it
# is a hash of the secret, not the secret.
_HASH_NAME = re.compile(r"(?:hash|digest|checksum|sha1|sha256|sha512|md5)$")
_HEX_DIGEST = re.compile(r"(?:sha(?:1|256|384|512):)?(?:[0-9a-f]{32,128}|[0-9A-F]{32,128})")
# Words of letters (a short number at each end at most, or a short run of letters and
# digits) joined by ``-``, ``_`` or ``.``, or a path: ``OPENAI_API_KEY_2``, ``X-API-KEY-V2``,
# ``app-tls-7f9c2b``, ``Bearer``, ``/run/secrets/db``; not ``a8Fk2mQ9zX7pL3vB``.
NAMES_A_THING = re.compile(
    r"(?i)(?:[a-z]+[0-9]{0,3}(?:[-_.](?:[a-z]+[0-9]{0,3}|[0-9]{1,4}|[a-z0-9]{1,8}))*|.*/.*)$"
)
_LAST_NAME = re.compile(r"[\w-]+$")


# A name that holds a secret's word but says what the value is otherwise: a tokenizer's
# (``tokenizer: cl100k_base``, a model's id), or a number of tokens (``token_budget``,
# ``max_tokens``, ``tokens_per_minute``, ``token_limit``): its words, in small letters.
_NOT_A_SECRETS_NAME = re.compile(
    r"(?:^|_)tokeni[sz](?:er|ers|ation)(?:_(?:name|path|id|model|type|mode|file))?$"
    r"|^(?:max|min|num|n)_tokens?(?:_|$)|(?:^|_)tokens?_(?:budget|limit|limits|count|counts"
    r"|per_\w+|used|usage|left|remaining|size|window)$"
)


def describes_secret(name: str, value: str) -> bool:
    """Is ``value`` under ``name`` (a key, or the text before a value ending with its name)
    a secret's name or place rather than the secret?"""
    m = _LAST_NAME.search(name.rstrip(_NAME_TAIL))
    if m is None:
        return False
    if _NOT_A_SECRETS_NAME.search(_CAMEL.sub("_", m.group()).lower()):
        return True
    last = _CAMEL.sub("", m.group()).lower()
    if _KEY_ID.search(last) or (_HASH_NAME.search(last) and _HEX_DIGEST.fullmatch(value)):
        return True
    return _DESCRIBES.search(last) is not None and NAMES_A_THING.match(value) is not None


def generic_value(value: str, named: str, after: bytes, minimum: float, quoted: bool) -> bool:
    """Is ``value``, which a generic rule matched after ``named`` (its name and what stands
    between them) and before ``after``, a secret? Not the key of a mapping on the lines
    below the name (``max_tokens:`` over a model's name), nor a value whose name says
    which secret or where it is (``describes_secret``); a number only as a password."""
    if ":" in (after.lstrip(b"\"'")[:1].decode("latin-1"), value[-1:]) and "\n" in named:
        return False
    if describes_secret(named, value):
        return False
    if value.isdigit():
        return numeric_password(named, value)
    return plausible_secret(value, minimum, quoted=quoted)


def numeric_password(name: str, value: str) -> bool:
    """Whether ``value``, all digits, is a password by the name before it (a key, or a
    name in text with the quotes and ``:``/``=`` after it)."""
    return (
        _PASSWORD_DIGITS.fullmatch(value) is not None
        and _PASSWORD_LAST.search(name.rstrip(_NAME_TAIL)) is not None
    )


@lru_cache(maxsize=4096)
def holder_rule(name: str) -> str | None:
    """The generic rule a key calls for in every value below it (``credentials``,
    ``apiKeys``), if it holds secrets by names of their own."""
    m = _HOLDERS.search(_CAMEL.sub("_", name).lower())
    return None if m is None else "generic-password" if m.group(1) else "generic-secret"


def held_secret(
    name: str,
    value: str,
    rule_id: str,
    *,
    entropy: Mapping[str, float | None],
    allow: AbstractSet[str] = frozenset(),
) -> bool:
    """Whether ``value``, under ``name`` somewhere below a holder of secrets (``holder_rule``
    gave ``rule_id``), is a secret: one word as long as the rule's shortest value (6
    characters for a password, 8 for a key), random as one (the rule's minimum in
    ``entropy``), not allowed, and not under a name that only describes it. So ``enabled``,
    ``true``, ``./db_password.txt``, ``${{ secrets.X }}`` and a ``name:`` stay."""
    if rule_id not in entropy or value in allow:
        return False
    if len(value) < (6 if rule_id == "generic-password" else 8):
        return False
    if _CAMEL.sub("", name).replace("_", "").lower() in _DESCRIBING:
        return False
    if _SPACE_OR_REFERENCE.search(value):
        return False
    return plausible_secret(value, entropy[rule_id] or 0.0, quoted=True)


# -- the forms in which text names a value: the generic rules' patterns (RE2, for
# ``redact_rules``), kept here with the rest of what a name says.

# A quote around a name or value, also escaped (``\"password\": \"…\"``: JSON inside a string).
QUOTE = r"(?:\\{0,3}[\"'])?"


def value_pattern(shortest: int, longest: int) -> str:
    """The value of an assignment: double-quoted, single-quoted (the quotes escaped or not) or
    bare; the secret is the group that matched (the last one: bare)."""
    n = f"{{{shortest},{longest}}}"
    return (
        rf"(?:\\{{0,3}}\"([^\"\s]{n}?)\\{{0,3}}\"|\\{{0,3}}'([^'\s]{n}?)\\{{0,3}}'"
        rf"|([^\s\"'`,;(){{}}\[\]<>$]{n}))"
    )


def quoted_pattern(shortest: int, longest: int) -> str:
    """A quoted value only (the two groups of ``value_pattern``'s quoted ones)."""
    return value_pattern(shortest, longest).rsplit("|", 1)[0] + ")"


# The words of a password's name ("DB_PASSWORD", "PGPASSWORD", "userPassword", "pwd",
# sshpass's "SSHPASS", but not "bypass" or "GIT_ASKPASS"), and of a key's or a token's.
PASSWORD_WORD = (
    r"(?:(?i:pass(?:word|wd|phrase))|(?:^|[^A-Za-z])(?i:pass|pwd)|[a-z](?:Pass|Pwd)|SSHPASS)"
)
SECRET_WORD = (
    r"(?i:secret|token|api[_-]?key|access[_-]?key|private[_-]?key|auth[_-]?key|credentials?"
    r"|signing[_-]?key|client[_-]?key|encryption[_-]?key|master[_-]?key)"
)


def named_forms(
    word: str, value: str, quoted: str, before: tuple[str, ...] = (), own: tuple[str, ...] = ()
) -> str:
    """A value named by a name holding ``word`` (``value``: its pattern, quoted or bare;
    ``quoted``: quoted only), in each form text gives it: fish's ``set -x NAME v``, Windows'
    ``setx NAME v``, ``launchctl setenv NAME v``, XML's ``<NAME>v``, .NET's ``<add
    key="NAME" value="v"/>``, a name/value entry (Kubernetes' ``- name: NAME`` over ``value:
    v``), a call's two strings (PHP's ``define('NAME', 'v')``, ``os.getenv("NAME", "v")``),
    what ``before`` says comes before a value, an assignment or prose (``NAME=v``,
    ``env["NAME"] = v``, ``password is v``) and a Markdown table's row (``| NAME | v |``);
    ``own``: whole forms with their own groups. Each
    value pattern is there once (a pattern per form made the rule's program eight times the
    size, too large for RE2's fast matcher); its bare value is the last group (judged as
    bare: no identifier)."""
    name = rf"[\w.:-]{{0,30}}{word}[\w.:-]{{0,20}}"
    quoted_forms = (
        rf"\b(?i:key)[ \t]*=[ \t]*[\"']{name}[\"'][ \t]+(?i:value)[ \t]*=[ \t]*",
        rf"{word}[\w.:-]{{0,20}}[\"'][ \t]*,[ \t]*",
    )
    valued_forms = (
        rf"\b(?:set(?:[ \t]+-[a-zA-Z]+)+|setx|launchctl[ \t]+setenv)[ \t]+{name}[ \t]+",
        rf"<{name}>[ \t]*",
        rf"\b(?i:name)[\"']?[ \t]*[:=][ \t]*[\"']?{name}[\"']?[ \t]*,?\s{{0,40}}?"
        rf"[\"']?(?i:value)[\"']?[ \t]*[:=][ \t]*",
        *before,
        # (a Markdown table's row: ``| `DB_PASSWORD` | `…` |``, the cell after the name's)
        rf"{word}[\w-]{{0,20}}{QUOTE}\]?"
        r"(?:\s{0,3}(?::=|=>|=|:)\s{0,3}|[ \t]+(?:is|was):?[ \t]+|`?[ \t]*\|[ \t]*`?)",
    )
    return (
        "(?:"
        + "".join(f"{form}|" for form in own)
        + "(?:"
        + "|".join(quoted_forms)
        + ")"
        + quoted
        + "|(?:"
        + "|".join(valued_forms)
        + ")"
        + value
        + ")"
    )


# Where a command line gives a password: MySQL's and MariaDB's clients and MySQL Shell, by
# name, or by path (quoted or not) where a command starts (a line's start, after ``;``, ``&``,
# ``|``, ``(`` or a backtick, after ``sudo``, ``exec``, ``env``, ``nohup`` or ``time``, or
# after ``docker exec``/``kubectl exec`` and the container's name), glued to ``-p``.
MYSQL = (
    r"(?:mysql(?:dump|admin|import|check|show|slap|pump|sh)?"
    r"|mariadb(?:-?(?:dump|admin|import|check|show|slap))?)(?:\.exe)?"
)
_MYSQL_PATH = (
    r"(?:\"[^\"\n]*[/\\]" + MYSQL + r"\"|'[^'\n]*[/\\]" + MYSQL + "'"
    r"|[^\s;&|(`\"']*[/\\]" + MYSQL + ")"
)
_COMMAND_START = (
    r"(?:^|[;&|(`\n])[ \t]*(?:(?:sudo|exec|env|nohup|time)(?:[ \t]+-\S+)*[ \t]+"
    r"|(?:docker|podman|kubectl)[ \t]+exec(?:[ \t]+-\S+)*[ \t]+[^\s;&|]+"
    r"(?:[ \t]+--)?[ \t]+)?"
)
# A command's name as a word (or a path's last part); a string's quote before it too: a
# command line that is a string of JSON or code (``{"command": "mysql -p…"}``).
_WORD_START = r"(?:^|[\s;&|(`\"'])"
_WORD_OF = r"(?:^|[\s;&|(`/\"'])"
_ARGS = r"(?:[ \t]+[^\s|;&<>()]+){0,30}?"  # the arguments before the password's flag
# Each command and what comes before its password: the client by its name as a word (not
# a path's last folder: ``/var/lib/mysql -perm``) or by its path (``/usr/bin/mysql``,
# ``"C:\Program Files\…\bin\mysql.exe"``; not ``find /usr/bin/mysql -perm``) and ``-p``;
# sshpass's ``-p``; a registry login's ``-p`` (docker, podman, helm, …) and ``az login``'s;
# ``redis-cli -a``; ssh-keygen's passphrases (``-N``, ``-P``); htpasswd's last argument
# with ``-b`` (after the file, and the user; ``-n``: no file); ``net use``'s after
# ``/user:…`` or after the share.
PASSWORD_COMMANDS = (
    rf"(?:{_WORD_START}{MYSQL}|{_COMMAND_START}{_MYSQL_PATH}){_ARGS}[ \t]+-p",
    _WORD_START + r"sshpass(?:[ \t]+-[A-Za-oq-z]\S*){0,5}?[ \t]+-p[ \t]*",
    rf"{_WORD_OF}(?:docker|podman|buildah|skopeo|nerdctl|oras|helm[ \t]+registry|az)"
    rf"[ \t]+login{_ARGS}[ \t]+-p[ \t]+",
    rf"{_WORD_OF}redis-cli(?:\.exe)?{_ARGS}[ \t]+-a[ \t]+",
    rf"{_WORD_OF}ssh-keygen(?:\.exe)?{_ARGS}[ \t]+-[NP][ \t]*",
    rf"{_WORD_OF}htpasswd(?:\.exe)?(?:[ \t]+-[a-zA-Z]+)*?[ \t]+-[a-mo-zA-Z]*b[a-mo-zA-Z]*"
    r"(?:[ \t]+-[a-zA-Z]+)*[ \t]+[^\s|;&<>()-]\S*[ \t]+[^\s|;&<>()-]\S*[ \t]+",
    rf"{_WORD_OF}htpasswd(?:\.exe)?(?:[ \t]+-[a-zA-Z]+)*?[ \t]+-[a-zA-Z]*(?:nb|bn)[a-zA-Z]*"
    r"(?:[ \t]+-[a-zA-Z]+)*[ \t]+[^\s|;&<>()-]\S*[ \t]+",
    r"(?:^|[\s;&|(`])(?i:net)[ \t]+(?i:use)\b[^\n|&]*?[ \t]/(?i:u(?:ser)?):\S+[ \t]+",
    r"(?:^|[\s;&|(`])(?i:net)[ \t]+(?i:use)(?:[ \t]+(?:[A-Za-z]:|\*))?[ \t]+\\\\\S+[ \t]+",
)
