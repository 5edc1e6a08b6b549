"""A person's template reading a field on a value of another kind (a turn's on the session,
the session's on a turn or an item) was told "did you mean" the nearest field of the value
it read it on (``session.items``: "did you mean title?"), or nothing: now the error says
which kind has the field, and how the template reads it. A misspelt field of the right kind
still gets its "did you mean"."""

from __future__ import annotations

from pathlib import Path

import pytest

from exporter.doctor_templates import sample_session
from exporter.render import TemplateError, render

TURN = {"role": "user", "when": "09:01", "time": None, "queued": False, "task": False,
        "model": None, "items": [{"kind": "text", "text": "hi"}], "messages": []}  # fmt: skip


def _error(tmp_path: Path, source: str) -> str:
    folder = tmp_path / f"mine{len(list(tmp_path.iterdir()))}"  # (one a render: not cached)
    folder.mkdir()
    (folder / "t.md.j2").write_text(source)
    with pytest.raises(TemplateError) as caught:
        render("t.md.j2", {"session": sample_session(), "turns": [TURN]}, folder)
    return caught.value.what


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ("{{ session.items }}", "(items is a field of a turn, not of the session: turn.items)"),
        ("{{ session.exit_code }}",
         "(exit_code is a field of an item, not of the session: item.exit_code)"),
        ("{% for turn in turns %}{{ turn.session_id }}{% endfor %}",
         "(session_id is a field of the session, not of a turn: session.session_id)"),
        ("{% for turn in turns %}{% for item in turn.items %}{{ item.git_branch }}"
         "{% endfor %}{% endfor %}",
         "(git_branch is a field of the session, not of an item: session.git_branch)"),
        ("{% for turn in turns %}{% for item in turn.items %}{{ item.role }}"
         "{% endfor %}{% endfor %}", "(role is a field of a turn, not of an item: turn.role)"),
    ],
)  # fmt: skip
def test_a_field_of_another_kind_says_which_kind_has_it(tmp_path, source, said):
    what = _error(tmp_path, source)
    assert what.endswith(said) and "did you mean" not in what, what


def test_a_misspelt_field_of_the_right_kind_still_gets_did_you_mean(tmp_path):
    assert _error(tmp_path, "{{ session.titel }}").endswith("(did you mean title?)")
    assert _error(tmp_path, "{% for turn in turns %}{{ turn.itmes }}{% endfor %}").endswith(
        "(did you mean items?)"
    )


def test_the_kinds_know_every_field_the_demo_notes_give_a_template():
    """``template_kinds`` lists a turn's and an item's fields by hand: each field the demo
    home's sessions give a template is on its list, so none is said to be another kind's."""
    from conftest import EXAMPLES_HOME, load_sessions

    from exporter.adapters import all_adapters
    from exporter.template_kinds import ITEM_FIELDS, TURN_FIELDS
    from exporter.turns import build_turns

    turn_keys, item_keys = set(), set()
    for adapter in all_adapters():
        sessions, _problems = load_sessions(adapter, EXAMPLES_HOME)
        for s in sessions:
            for turn in build_turns(s, "attachments", None, [], lambda key: None):
                turn_keys |= set(turn)
                for item in turn["items"]:
                    item_keys |= set(item)
    assert len(item_keys) > 20
    assert turn_keys <= TURN_FIELDS, turn_keys - TURN_FIELDS
    assert item_keys <= ITEM_FIELDS, item_keys - ITEM_FIELDS
