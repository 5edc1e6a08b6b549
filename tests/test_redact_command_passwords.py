"""A password of letters alone where a client's command line gives it (``curl -u me:…``,
``wget --password=…``, ``mongosh --password …``) is a password: it goes, the user name
stays. The same words in prose, and a password flag of a command that only asks for one
(``psql --password``, ``mysql --password dbname``), stay."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exporter.redact import redact_text
from exporter.redact_names import STAND_IN

# Not a stand-in (``undefined``, ``changeme``) or a word for a password: those stay anywhere.
WORDS = st.text("abcdefghijklmnopqrstuvwxyz", min_size=4, max_size=16).filter(
    lambda w: (
        STAND_IN.match(w) is None
        and w not in {"pass", "passwd", "pwd", "guest", "secret"}
        and "password" not in w
    )
)
STARTS = ["", "$ ", "sudo ", "cd /srv && ", "echo ok; ", "`", "    ", "/usr/bin/"]
COMMANDS = [
    "{s}curl -u {u}:{p} https://example.test/api",
    "{s}curl -sS --user {u}:{p} https://example.test/api",
    "{s}curl --user={u}:{p} -X POST https://example.test/api",
    "{s}curl -u '{u}:{p}' https://example.test/api",
    '{s}curl -H "Accept: x" -u "{u}:{p}" https://example.test/api',
    "{s}wget --user={u} --password={p} https://example.test/f",
    "{s}wget --http-user={u} --http-password {p} https://example.test/f",
    "{s}mongosh -u {u} --password {p} mongodb.example.test",
    "{s}mysql -u {u} --password={p} shop",
    "{s}docker login -u {u} --password {p} registry.example.test",
    "{s}twine upload -u {u} --password {p} dist/*",
]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(COMMANDS), st.sampled_from(STARTS), WORDS, WORDS)
def test_a_password_of_letters_in_a_command_line_goes(form, start, user, password):
    if user == password or password in user or password in form:
        return
    line = form.format(s=start, u=user, p=password)
    out = redact_text(line)
    assert password not in out, out
    assert user in out and "[REDACTED:" in out


@pytest.mark.parametrize(
    "text",
    [
        "Use the --password option to set it",
        "I ran curl -u admin:hunter and it failed",
        "curl -u admin:admin https://x",  # the user's own name: a default
        "curl -u user:pass https://x",  # a manual's stand-in
        "curl -u $USER:$PASS https://x",
        "curl -u admin: https://x",  # curl asks for it
        "psql --password shop",  # psql's flag only asks
        "mysql -u root --password shop",  # so does MySQL's, before a database
        "wget --password=/run/secrets/pw https://x",  # a path
        "curl --token abcdefgh https://x",  # a token looks like one
        # where the password comes from, not the password (review34 4)
        'curl -u "me:$(cat pw.txt)" https://x',  # a command's output
        "curl -u me:`cat pw.txt` https://x",
        'curl -u "me:${API_PW}" https://x',
        "twine upload -u me --password %TWINE_PASSWORD% dist/*",  # Windows' variable
        "curl -u me:<password> https://x",
    ],
)
def test_other_words_stay(text):
    assert redact_text(text) == text


@settings(max_examples=200, deadline=None)
@given(WORDS, WORDS, st.sampled_from(["Then ", "We tried ", "the docs say ", "a "]))
def test_the_same_words_in_prose_stay(user, password, lead):
    """A sentence that mentions the flags (not a command line: something stands before the
    client's name) keeps a password of letters, as before."""
    text = f"{lead}curl -u {user}:{password} and wget --password {password} failed"
    assert redact_text(text) == text
