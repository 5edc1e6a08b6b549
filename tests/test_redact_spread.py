"""A secret a rule found in one place of a session is redacted wherever else the session
holds it (an audit found ``project_token="…"`` redacted and, a few lines down, "The token
"…" is now set" kept); and the short password flags of ``mysql -p…`` and ``sshpass -p``.

Every secret is generated at test time from random characters; none is real.
"""

from __future__ import annotations

import string
from collections import Counter
from datetime import UTC

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from message_builder import msg, session

from exporter.model import AttachmentPart, TextPart, ThinkingPart, ToolCallPart, ToolResultPart
from exporter.notes import NoteSettings, build_note, default_relpath
from exporter.redact import redact_session, redact_text
from exporter.redact_spread import spreadable

ALNUM = string.ascii_letters + string.digits
TOKEN = "3f9ad6b9" + "d7b7e8e5" + "a1a5a9a7" + "b0b0b0b0"  # the audit's shape: 32 hex digits


def _written(s) -> str:
    """Everything the note of ``s`` puts in the vault: path, frontmatter, body, files."""
    note_settings = NoteSettings(timezone=UTC)
    relpath = default_relpath(s, note_settings, None)
    note = build_note(s, relpath, note_settings, lambda key: None)
    files = b"".join(a.data for a in note.attachments).decode("utf-8", "replace")
    return "\n".join([relpath, repr(note.frontmatter), note.body, files])


def test_the_audits_token_is_redacted_in_the_prose_after_the_code_that_names_it():
    reply = (
        f'    def __init__(self, project_token="{TOKEN}"):\n\n'
        f'The token "{TOKEN}" is now set as the default value.'
    )
    counts: Counter[str] = Counter()
    out = redact_session(session(msg("assistant", TextPart(reply))), counts)
    (part,) = out.messages[0].parts
    assert TOKEN not in part.text
    assert part.text.count("[REDACTED:generic-secret]") == 2
    assert counts == {"generic-secret": 2}


def test_a_secret_found_later_is_redacted_in_earlier_messages_the_title_and_tool_io():
    """Found in the last message by its name: gone from the title (so the file name), the
    prompt before it, a tool's input and output, thinking and an attached file too."""
    s = session(
        msg("user", TextPart(f"why does {TOKEN} fail?")),
        msg("assistant", ThinkingPart(f"{TOKEN} looks like a key"), minute=1),
        msg("assistant", ToolCallPart("Bash", {"command": f"grep -r {TOKEN} ."}, "c1"), minute=2),
        msg("user", ToolResultPart(f"config.py:3:{TOKEN}\n", "c1"), minute=3),
        msg("user", AttachmentPart("text/plain", f"key {TOKEN}\n".encode(), "k.txt"), minute=4),
        msg("assistant", TextPart(f'Set `MIXPANEL_TOKEN="{TOKEN}"` in .env'), minute=5),
        title=f"why does {TOKEN} fail?",
    )
    out = redact_session(s)
    assert TOKEN not in repr(out)
    assert out.title == "why does [REDACTED:generic-secret] fail?"
    assert TOKEN not in _written(out)


# A context rule's way of naming a secret, in a message's text or a tool's input.
NAMED_BY = [
    lambda v: TextPart(f'    def __init__(self, project_token="{v}"):'),
    lambda v: TextPart(f"export DB_PASSWORD={v}"),
    lambda v: TextPart(f"credentials:\n  prod:\n    db: {v}\n"),
    lambda v: TextPart(f"docker login -u ci --password {v} registry"),
    lambda v: TextPart(f"mysql -u root -p{v} shop"),
    lambda v: ToolCallPart("Write", {"path": "x.json", "api_key": v}, "c9"),
]
# Where the same value comes again, plain.
REPEATED_IN = [
    lambda v: ("text", TextPart(f'The token "{v}" is now the default.')),
    lambda v: ("output", ToolResultPart(f"ok\n{v}\n", "c1")),
    lambda v: ("input", ToolCallPart("Bash", {"command": f"echo {v}"}, "c1")),
    lambda v: ("thinking", ThinkingPart(f"so {v} is it")),
    lambda v: ("title", None),
]


@settings(max_examples=200, deadline=None)
@given(
    secret=st.text(ALNUM, min_size=16, max_size=40),
    named_by=st.sampled_from(range(len(NAMED_BY))),
    repeated=st.lists(st.sampled_from(range(len(REPEATED_IN))), min_size=1, max_size=3),
    named_first=st.booleans(),
)
def test_a_secret_named_once_never_reaches_the_note_wherever_it_comes_again(
    secret, named_by, repeated, named_first
):
    assume(any(c.isdigit() for c in secret) and spreadable(secret))
    named = NAMED_BY[named_by](secret)
    assume(secret not in repr(redact_session(session(msg("assistant", named)))))
    again = [REPEATED_IN[i](secret) for i in repeated]
    parts = [msg("assistant", part, minute=i + 1) for i, (_, part) in enumerate(again) if part]
    named_msg = msg("assistant", named, minute=0)
    messages = [named_msg, *parts] if named_first else [*parts, named_msg]
    title = f"fix {secret} now" if any(where == "title" for where, _ in again) else None
    out = redact_session(session(*messages, title=title))
    assert secret not in repr(out)
    assert secret not in _written(out)


def test_one_sessions_secret_does_not_redact_another_session():
    """Per session: a value named a secret in one session is not looked for in another."""
    named = session(msg("assistant", TextPart(f'api_key = "{TOKEN}"')), session_id="a")
    plain = session(msg("assistant", TextPart(f"the build id is {TOKEN}")), session_id="b")
    assert TOKEN not in repr(redact_session(named))
    assert redact_session(plain) is plain


@pytest.mark.parametrize(
    ("named", "plain"),
    [
        ('password = "Summer24"', "It is Summer24 again"),  # shorter than 12 characters
        ('password = "aaaaaaaaaaaa1"', "row aaaaaaaaaaaa1 stays"),  # not random
        ('SECRET_KEY = "production_database"', "the production_database"),  # words
        # Evidence by its shape, whatever a name beside it once said (the review's cases)
        ('token_endpoint = "oauth2/v1/token"', "GET https://id.example.com/oauth2/v1/token"),
        (
            'secret_id = "a3359d8f-b7c6-44bc-98db-2ca01fe16890"',
            "ls a3359d8f-b7c6-44bc-98db-2ca01fe16890/",
        ),
        (
            'tokenizer_sha = "e206570a1b2c3d4e5f60718293a4b5c6d7e8f901"',
            "git show e206570a1b2c3d4e5f60718293a4b5c6d7e8f901",
        ),
    ],
)
def test_a_short_or_plain_value_is_redacted_only_where_it_was_named(named, plain):
    s = session(msg("assistant", TextPart(named)), msg("user", TextPart(plain), minute=1))
    out = redact_session(s)
    assert out.messages[1] is s.messages[1]


def test_the_spread_is_counted_and_a_second_run_is_the_same():
    text = f'token="{TOKEN}"'
    s = session(msg("assistant", TextPart(text)), msg("user", TextPart(f"x {TOKEN}"), minute=1))
    counts: Counter[str] = Counter()
    once = redact_session(s, counts)
    assert counts == {"generic-secret": 2}
    assert redact_session(s) == once
    assert redact_session(once) is once


# -- short password flags ------------------------------------------------------------------

PASSWORD = "S3cret" + "Passw0rd"


@pytest.mark.parametrize(
    "command",
    [
        f"mysql -u root -p{PASSWORD} mydb",
        f"mysqldump -uroot -p{PASSWORD} shop > shop.sql",
        f"mariadb -h db -P 3306 -p'{PASSWORD}' shop",
        f'mysqladmin -u root -p"{PASSWORD}" status',
        f"docker exec db mysql -uroot -p{PASSWORD} -e 'show databases'",
        f"sshpass -p '{PASSWORD}' ssh deploy@host",
        f"sshpass -p {PASSWORD} ssh deploy@host",
        f"sshpass -v -p{PASSWORD} scp a host:b",
        # the client by its path, quoted or not, where a command starts
        f"/usr/bin/mysql -u root -p{PASSWORD} shop",
        f"sudo /usr/local/mysql/bin/mysqldump -uroot -p{PASSWORD} shop",
        f"./bin/mariadb -p'{PASSWORD}' shop",
        f"C:\\xampp\\mysql\\bin\\mysql.exe -u root -p{PASSWORD}",
        f'"C:\\Program Files\\MySQL\\MySQL Server 8.0\\bin\\mysql.exe" -u root -p{PASSWORD}',
        f"& 'C:\\Program Files\\MySQL\\bin\\mysql.exe' -uroot -p{PASSWORD}",
        f'"/Applications/MAMP/Library/bin/mysql" -uroot -p{PASSWORD}',
        f"${{MYSQL_HOME}}/bin/mysql -uroot -p{PASSWORD}",
        f"cd /srv && /usr/bin/mariadb-dump -uroot -p{PASSWORD} db",
        f"docker exec -it db /usr/bin/mysql -uroot -p{PASSWORD}",
        # MySQL Shell takes the password glued to -p as the classic client does
        f"mysqlsh -u root -p{PASSWORD} --sql -h db",
        f"mysqlsh --uri root@db:3306 -p'{PASSWORD}'",
    ],
)
def test_a_password_after_mysqls_or_sshpasss_short_flag_is_redacted(command):
    counts: Counter[str] = Counter()
    out = redact_text(command, counts)
    assert PASSWORD not in out
    assert counts == {"password-flag": 1}


@pytest.mark.parametrize(
    "command",
    [
        "mysql -u root -p mydb",  # asks for the password
        "mysql -p",
        "mysqlsh -u root -p --js",  # asks for the password
        "mysql -uroot -p$MYSQL_PWD shop",
        'mysql -uroot -p"$MYSQL_ROOT_PASSWORD"',
        "docker run --name mysql -p3306:3306 mysql:8",  # a port map
        "docker run --name mysql -p 3306:3306 mysql:8",
        "python -m http.server -p 8080",
        "gcc -pthread -o app app.c",
        "find . -name '*.py' -print",
        "sshpass -e ssh -p 2222 deploy@host",  # ssh's port, the password from the environment
        "ssh -p 2222 deploy@host",
        # "mysql" as a folder of a path, not the command (the review's cases)
        "find /var/lib/mysql -perm 644 -print",
        "gcc -I/usr/include/mysql -pthread x.c",
        "docker run --name mysql -p3306:3306/tcp mysql:8",  # a port map with its protocol
        "ls -l /usr/local/mysql -p",
        "cp -r /opt/mysql/data/mysql -pv backup/",
        # the client's path as another command's argument (the review's cases)
        "find /usr/bin/mysql -perm 755",
        "cp /usr/local/mysql/bin/mysql -pv /backup/",
        "tar czf b.tgz ./bin/mysql -preserve",
        "strings /usr/bin/mysql -pgsql",
        "rsync -av /usr/local/mysql/bin/mysql host:/srv -progress",
        # prose that names a client, then another tool's -p flag (the review's cases)
        "I installed mysqlsh and then built it with gcc -pthread main.c",
        "after the mysql upgrade, rebuild with cc -pedantic -pipe x.c",
    ],
)
def test_other_short_p_flags_stay(command):
    assert redact_text(command) == command
