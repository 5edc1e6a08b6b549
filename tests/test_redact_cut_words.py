"""The leftovers of the cut names (secrets10): a database client's password in a command
given as a list of its words (``["mysql", "-u", "root", "-p", "…"]``) or written out in
one string item, ``auth=`` at an item's end, a short password name cut (``["p", "wd=",
"…"]``), and a sentence whose words are items (``["the", "password", "is", "…"]``). Each
goes as its whole-item form does; ordinary lists stay."""

from __future__ import annotations

import json

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from secret_values import secret_values

from exporter.redact import redactor

# A made-up value as random as a key, built in pieces.
_VALUE = "Zq9xLm4" + "hunter2Wq" + "Ab3Cd5Ef7Gh"


def _args(items: list[str]) -> str:
    return json.dumps({"args": items})


def test_each_leftover_loses_its_value_as_its_whole_form_does():
    for items, whole in (
        (["mysql", "-u", "root", "-p", _VALUE], f"mysql -u root -p {_VALUE}"),
        (["mysql", "-u", "root", "-p" + _VALUE], f"mysql -u root -p{_VALUE}"),
        (["mysql", "--password=" + _VALUE], f"mysql --password={_VALUE}"),
        (["/usr/bin/mysql", "-p", _VALUE], f"/usr/bin/mysql -p {_VALUE}"),
        (["sshpass", "-p", _VALUE, "ssh", "host"], f"sshpass -p {_VALUE} ssh host"),
        (["auth=", _VALUE], f"auth={_VALUE}"),
        (["Auth:", _VALUE], f"Auth:{_VALUE}"),
        (["p", "wd=", _VALUE], f"pwd={_VALUE}"),
        (["pa", "ss=", _VALUE], f"pass={_VALUE}"),
        (["the", "password", "is", _VALUE], f"the password is {_VALUE}"),
        (["the", "secret", "was", _VALUE], f"the secret was {_VALUE}"),
    ):
        assert _VALUE not in redactor().text(whole), whole  # (the rules' own form)
        assert _VALUE not in redactor().text(_args(items)), items


def test_a_command_line_in_a_string_item_loses_its_password():
    for command in (f"mysql -u root -p{_VALUE}", f"mysql -u root -p {_VALUE}"):
        assert _VALUE not in redactor().text(json.dumps({"command": command})), command
    text = _args(["bash", "-c", f"mysql -u root -p{_VALUE}"])
    assert redactor().text(text) == _args(
        ["bash", "-c", "mysql -u root -p[REDACTED:password-flag]"]
    )


def test_only_the_value_goes():
    assert redactor().text(_args(["mysql", "-u", "root", "-p", _VALUE, "db"])) == _args(
        ["mysql", "-u", "root", "-p", "[REDACTED:secret-flag]", "db"]
    )
    assert redactor().text(_args(["p", "wd=", _VALUE])) == _args(
        ["p", "wd=", "[REDACTED:generic-password]"]
    )


def test_an_item_before_a_short_name_counts_as_a_word_of_its_own():
    # ``xpwd=…`` written as one is no password's name; as items, ``x`` and ``pwd=`` are two
    # words (the argv reading of a tool's own list says the same): it errs safe.
    assert _VALUE not in redactor().text(_args(["x", "pwd=", _VALUE]))


def test_ordinary_lists_stay():
    for items in (
        ["mkdir", "-p", "build"],
        ["ssh", "-p", "2222", "host"],
        ["git", "-p", "log"],
        ["mysql", "-u", "root", "-p", "mydb"],
        ["mysql", "-u", "root", "-P", "3306", "-p"],
        ["the", "password", "is", "wrong"],
        ["the", "password", "is", "incorrect", "again"],
        ["oauth=", _VALUE],
        ["auth_mode=", "basic"],
        ["p", "wd"],
        ["pa", "ssword", "reset"],
        ["by", "pass=", "yes"],
        ["is", "was", "=", ":"],
    ):
        assert redactor().text(_args(items)) == _args(items), items


_WORDS = st.sampled_from(
    ["the", "a", "build", "run", "host", "log", "mydb", "root", "is", "was", "=", ":", "-p",
     "-u", "mkdir", "ssh", "mysql", "git", "password", "secret", "p", "wd", "pa", "ss", "auth",
     "2222", "3306", "wrong", "main", "app_db", "src/app.py", "--verbose"]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(_WORDS, min_size=2, max_size=8))
@example(["password", "=", "2222", "2222"])  # (secrets11: glued, ``password=22222222``)
@example(["password", ":", "3306", "2222", "main"])
def test_lists_of_ordinary_words_and_argv_are_never_changed(items):
    # (a list whose words written out the rules themselves redact is read as that form is)
    assume(redactor().text(" ".join(items)) == " ".join(items))
    assert redactor().text(_args(items)) == _args(items)


@st.composite
def _leftover_shapes(draw) -> tuple[list[str], str, str]:
    value = draw(secret_values(20, 30))
    shape = draw(st.sampled_from(["mysql-p", "mysql-glued", "auth", "short", "words"]))
    before = draw(st.lists(st.sampled_from(["run", "then", "sudo"]), max_size=2))
    after = draw(st.lists(st.sampled_from(["mydb", "--verbose", "next"]), max_size=2))
    if shape == "mysql-p":
        user = draw(st.sampled_from([[], ["-u", "root"], ["-h", "db", "-u", "app"]]))
        items = ["mysql", *user, "-p", value]
    elif shape == "mysql-glued":
        items = [draw(st.sampled_from(["mysql", "mariadb", "/usr/bin/mysql"])), "-p" + value]
    elif shape == "auth":
        items = [draw(st.sampled_from(["auth=", "auth:", "AUTH=", "auth = "])), value]
    elif shape == "short":
        name = draw(st.sampled_from(["pwd", "pass", "PWD", "Pass"]))
        cut = draw(st.integers(1, len(name) - 1))
        assign = draw(st.sampled_from(["=", ":", " is"]))
        items = [name[:cut], name[cut:] + assign, value]
        return [*before, *items, *after], value, f"{name}{assign} {value}"
    else:
        name = draw(st.sampled_from(["password", "secret", "token", "api_key", "passwd"]))
        items = [draw(st.sampled_from(["the", "my", "our"])), name,
                 draw(st.sampled_from(["is", "was", "is:", "="])), value]  # fmt: skip
    return [*before, *items, *after], value, " ".join([*before, *items, *after])


@settings(max_examples=300, deadline=None)
@given(_leftover_shapes())
def test_every_leftover_shape_with_a_secret_value_is_redacted(shape):
    items, value, whole = shape
    # (only the shapes whose whole form, the items written out, the rules take)
    assume(value not in redactor().text(whole))
    assert value not in redactor().text(_args(items)), items


def test_curls_user_and_password_cut_after_the_colon_go_as_the_whole_form_does():
    """``["curl", "-u", "me:", V]`` is read as ``curl -u me:V`` (secrets11); what that
    form keeps (a URL, an option after the user) the list keeps too."""
    for items in (
        ["curl", "-u", "me:", _VALUE],
        ["curl", "--user", "me:", _VALUE, "https://example.org"],
        ["curl", "--user=me:", _VALUE],
        ["curl", "-s", "-u me:", _VALUE],
    ):
        whole = " ".join(items).replace(": ", ":").replace("me:" + " ", "me:")
        assert _VALUE not in redactor().text(whole), whole  # (the rules' own form)
        assert redactor().text(_args(items)) == _args(
            [i if i != _VALUE else "[REDACTED:curl-user-password]" for i in items]
        ), items
    for items in (
        ["curl", "-u", "me:", "https://example.com/x"],
        ["curl", "-u", "me:", "--verbose", "https://example.com/x"],
        ["curl", "-u", "me", "https://example.com/x"],
        ["curl", "-H", "Accept:", "text/plain"],
    ):
        assert redactor().text(_args(items)) == _args(items), items


def test_auth_and_its_assignment_as_items_go_as_their_whole_forms_do():
    """``auth=V`` (a Docker config's form) is redacted whole and as ``["auth=", V]``;
    ``auth = V`` whole is not (``auth`` is no password's name of its own), nor is
    ``["auth", "=", V]``, read as those words."""
    for whole, items in (
        (f"auth={_VALUE}", ["auth=", _VALUE]),
        (f"auth:{_VALUE}", ["auth:", _VALUE]),
    ):
        assert _VALUE not in redactor().text(whole)
        assert _VALUE not in redactor().text(_args(items)), items
    for whole, items in (
        (f"auth = {_VALUE}", ["auth", "=", _VALUE]),
        (f"auth : {_VALUE}", ["auth", ":", _VALUE]),
    ):
        assert redactor().text(whole) == whole
        assert redactor().text(_args(items)) == _args(items), items


def test_numbers_after_an_assignment_of_its_own_are_words_not_a_password_cut():
    """secrets11: ``["password", "=", "2222", "3306"]`` read glued was ``password=22223306``
    (a password of 8 digits); as words, ``password = 2222 3306``, as the whole form, it is
    none. Numbers after an assignment that ends its own item go on being read glued, and
    a random value of several items after a lone ``=`` still goes."""
    for items in (["password", "=", "2222", "2222"], ["password", ":", "1234", "5678"]):
        assert redactor().text(_args(items)) == _args(items), items
    assert redactor().text(_args(["password=", "2222", "3306"])) == _args(
        ["password=", "[REDACTED:generic-password]", "[REDACTED:generic-password]"]
    )
    half = len(_VALUE) // 2
    redacted = redactor().text(_args(["password", "=", _VALUE[:half], _VALUE[half:]]))
    assert _VALUE[:half] not in redacted and _VALUE[half:] not in redacted
