"""``doctor`` on notes an older run wrote with a template's secret in them: it is not said
to be "ok" because another unit names the same notes, and it says to take the secret out of
the template, not out of the note."""

from __future__ import annotations

from types import SimpleNamespace

from exporter.doctor_render import _secret_line
from exporter.vault_secrets import SOURCE_GONE, SecretFile, _kept_by_any, _units_of


def test_every_unit_naming_a_note_is_kept():
    state = SimpleNamespace(sources={
        "/old/home/a.jsonl": {"notes": ["claude-code:a"], "fingerprint": [["render", "old"]]},
        "/new/home/a.jsonl": {"notes": ["claude-code:a"], "fingerprint": [["render", "now"]]},
    })  # fmt: skip
    units = _units_of(state)  # type: ignore[arg-type]
    assert [name for name, _ in units["claude-code:a"]] == [
        "/old/home/a.jsonl",
        "/new/home/a.jsonl",
    ]


def test_a_note_is_rendered_again_only_if_every_unit_naming_it_is():
    # the unit a run reads now keeps it (its fingerprint is the current one): kept, whatever
    # the order the state lists the units in
    assert _kept_by_any([None, ""]) == ""
    assert _kept_by_any(["", None]) == ""
    assert _kept_by_any([None, None]) is None
    # a unit whose source is gone is no reason while another's is there (the file moved)
    assert _kept_by_any([SOURCE_GONE, None]) is None
    assert _kept_by_any([SOURCE_GONE]) == SOURCE_GONE


def test_a_secret_a_template_wrote_is_to_be_taken_out_of_the_template():
    found = SecretFile("AI Sessions/n.md", "note", {"github-pat": 1}, {})
    said = _secret_line(found, {"github-pat": "/t/session.md.j2:2"})
    assert "it came from your template (/t/session.md.j2:2): take it out of the template" in said
    assert "out of the note yourself" not in said
    # a secret of another rule is still the note's to mend
    other = SecretFile("AI Sessions/n.md", "note", {"aws-access-key": 1}, {})
    assert "out of the note yourself" in _secret_line(other, {"github-pat": "/t/session.md.j2:2"})
