"""A password a command line gives a client (``curl -u me:…``, ``wget --password …``,
``mongosh -p …``): a password whatever it looks like, a word of letters too.

Elsewhere a value after ``-u me:`` or ``--password`` must look random to be taken (prose
says ``--password option``); where a line runs one of these clients, the flag's value is
its password. ``CLIENT_LINE`` is the command's start, which the rules put before their
flag (``curl-user-password``, ``secret-flag``) so that their match shows it;
``command_password`` reads it there.
"""

from __future__ import annotations

import re

from .redact_names import MYSQL

# More commands' own flags for a password (review47 M4), as ``redact_names.PASSWORD_COMMANDS``
# gives them, the value after: SQL Server's ``sqlcmd``/``bcp -P``, Java's ``keytool`` and
# ``jarsigner`` ``-storepass``/``-keypass``, ``zip -P``, 7-Zip's ``-p`` (glued), Mosquitto's
# clients' ``-P``, ``unzip -P``, OpenSSL's ``-passin``/``-passout pass:…`` and ``enc -k``.
_OF = r"(?:^|[\s;&|(`/\"'])"  # a command's name as a word, or a path's last part
_ARGS_BEFORE = r"(?:[ \t]+[^\s|;&<>()]+){0,30}?"
MORE_PASSWORD_COMMANDS = (
    rf"{_OF}(?:sqlcmd|bcp)(?:\.exe)?{_ARGS_BEFORE}[ \t]+-P[ \t]*",
    rf"{_OF}(?:keytool|jarsigner)(?:\.exe)?{_ARGS_BEFORE}[ \t]+"
    r"-(?:src|dest|new)?(?:storepass|keypass)[ \t]+",
    rf"{_OF}(?:un)?zip(?:\.exe)?{_ARGS_BEFORE}[ \t]+-P[ \t]+",
    rf"{_OF}7z[ar]?(?:\.exe)?{_ARGS_BEFORE}[ \t]+-p",
    rf"{_OF}mosquitto_(?:pub|sub|rr)(?:\.exe)?{_ARGS_BEFORE}[ \t]+-P[ \t]+",
    rf"{_OF}openssl(?:\.exe)?{_ARGS_BEFORE}[ \t]+-pass(?:in|out)[ \t]+[\"']?pass:",
    rf"{_OF}openssl(?:\.exe)?[ \t]+enc{_ARGS_BEFORE}[ \t]+-k[ \t]+",
)
MORE_PASSWORD_KEYWORDS = ("sqlcmd", "bcp", "storepass", "keypass", "zip", "7z", "mosquitto_",
                          "pass:", "openssl")  # fmt: skip

# The clients whose ``-u user:password``, ``--password …`` (``--http-password``…) is theirs.
_CLIENTS = (
    r"curl|wget|" + MYSQL + r"|mongo(?:sh|dump|restore|export|import|stat|top|files)?"
    r"|(?:docker|podman|buildah|skopeo|nerdctl|oras|helm[ \t]+registry|az)[ \t]+login|twine"
)
# A command's start (a line's, after ``;``, ``&``, ``|``, ``(``, a backtick; after ``sudo``
# and its flags), the client by name or path, and its arguments before the flag. (RE2, in the
# rules; here with the client's name taken.)
_LINE = (
    r"(?:^|[;&|(`\n])[ \t]*(?:[$#>%][ \t]+)?(?:sudo(?:[ \t]+-\S+)*[ \t]+)?(?:[^\s;&|(`\"']*/)?"
    r"({clients})(?:\.exe)?(?:[ \t]+[^\s|;&<>()]+){{0,30}}?"
)
CLIENT_LINE = "(?:" + _LINE.format(clients="?:" + _CLIENTS) + ")"
_CLIENT_LINE = re.compile(_LINE.format(clients=_CLIENTS))
# MySQL's ``-p`` with a space asks for the password and takes the next word as a database;
# a word there as random as a key (the ``secret-flag`` rule's judgement) is a password
# given on the line all the same, as after ``--password`` (RE2; ``-P`` is the port).
MYSQL_ASKS = (
    r"(?:^|[\s;&|(`\"'])(?:[^\s;&|(`\"']*/)?" + MYSQL
    + r"(?:[ \t]+[^\s|;&<>()]+){0,30}?[ \t]+(?-i:-p)[ \t]+"
)  # fmt: skip
_MYSQL = re.compile(MYSQL)
# The password's flag that ends what a ``secret-flag`` match holds before its value.
_PASSWORD_FLAG = re.compile(r"(?i)--(?:[a-z0-9]+-){0,3}(?:password|passwd|pass)(=|\s+)[\"']?\Z")
# A value that points elsewhere, not a password: a path, a URL, a file's ``@…``, a
# command's output (``$(cat pw)``, a backtick), a variable (``${PW}``, Windows' ``%PW%``;
# ``$PW`` the patterns keep themselves), a stand-in in angle brackets.
_POINTER = re.compile(r"[/~.@`<]|\$[({]|%\w+%|[A-Za-z]:[\\/]|\w+://")


# MySQL's lone ``-p`` (or ``--password`` with a space) before a word: a database's name.
_ASKS_THEN_WORD = re.compile(
    r"(?:\s-p|--(?:[a-z0-9]+-){0,3}(?:password|passwd|pass))[ \t]+[\"']?\Z", re.I
)


def database_named(rule_id: str, named: str, value: str) -> bool:
    """Is ``value``, after MySQL's ``-p`` or ``--password`` with a space (which ask for the
    password), the database's name it is to the client (``shop_db_v2``, ``customers2024``)?
    Taken as a password given there all the same only when it looks like one: letters of
    both cases and a digit, or a sign beyond ``_-.``."""
    if rule_id != "secret-flag" or not _ASKS_THEN_WORD.search(named):
        return False
    # (the command may be a string of code or JSON: ``os.system("mysql … -p shop")``)
    client = _CLIENT_LINE.match(named.lstrip(" \t\"'"))
    if client is None or not _MYSQL.fullmatch(client.group(1)):
        return False
    if any(not (c.isalnum() or c in "_-.") for c in value):
        return False
    cases = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return not (cases and any(c.isdigit() for c in value))


def command_password(rule_id: str, named: str, value: str) -> bool:
    """Is ``value`` a password by where it stands: the match of ``rule_id`` before it
    (``named``) is a client's command line and its password flag?"""
    if rule_id not in ("curl-user-password", "secret-flag"):
        return False
    client = _CLIENT_LINE.match(named)
    if client is None or _POINTER.match(value):
        return False
    if rule_id == "secret-flag":
        flag = _PASSWORD_FLAG.search(named)
        if flag is None:
            return False  # ``--token``, ``--api-key``: a token looks like one
        # MySQL's ``--password`` with a space asks for it: the next word is a database.
        if _MYSQL.fullmatch(client.group(1)) and not flag.group(1).startswith("="):
            return False
    return True
