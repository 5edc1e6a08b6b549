"""A property the person gave a note under a name ccexport took later (``client``,
``starred``, ``archived``, …: ``vaultmerge.CLAIMED_LATE``) stays theirs: written before
ccexport wrote that key to the note, it is neither rewritten nor dropped, with the state
or without it (review31: a consultant's ``client: Acme Corp`` became ``Codex CLI``, and a
machine without ``.ccexport/`` dropped a person's ``starred`` and ``archived``)."""

from __future__ import annotations

import shutil

from codex_builder import CodexRollout
from vault_builder import export, the_note, write_session

from exporter import notefile

TID = "019a0000-1111-7222-8333-44445555cccc"


def _props(note) -> dict:
    return notefile.parse(note.read_text()).metadata


def _add(note, lines: str) -> None:
    text = note.read_text()
    note.write_text(text.replace("\n---\n", f"\n{lines}---\n", 1))


def _rollout(originator, prompts):
    r = CodexRollout(TID, source=None, meta_fields={"originator": originator})
    for prompt in prompts:
        r.user(prompt)
        r.assistant(f"reply to {prompt}")
    return r


def test_a_persons_client_on_a_note_written_without_one_stays(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    _rollout(1, ["q1"]).write(home / ".codex")  # (no client known: no client property)
    export(vault, home)
    note = the_note(vault)
    assert "client" not in _props(note)
    _add(note, "client: Acme Corp\n")
    for old in (home / ".codex").rglob("*.jsonl"):
        old.unlink()
    _rollout("codex_cli_rs", ["q1", "q2"]).write(home / ".codex")  # (now it names its client)
    report = export(vault, home)
    assert report.total("updated") == 1, report.changes
    props = _props(note)
    assert props["client"] == "Acme Corp" and "reply to q2" in note.read_text()


def test_a_persons_starred_and_archived_stay_on_a_machine_without_the_state(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["q1"])
    export(vault, home)
    note = the_note(vault)
    _add(note, "starred: true\narchived: true\nclient: Acme Corp\nmine: x\n")
    shutil.rmtree(vault / ".ccexport")
    write_session(home, ["q1", "q2"])
    export(vault, home)
    props = _props(note)
    assert "reply to q2" in note.read_text()
    assert (props["starred"], props["archived"], props["client"], props["mine"]) == (
        True, True, "Acme Corp", "x",
    )  # fmt: skip


def test_ccexports_own_value_of_such_a_key_is_still_ccexports(tmp_path):
    """Written by ccexport (the state says so), the key is ccexport's: a new value replaces
    it, as any property of ccexport's."""
    home, vault = tmp_path / "home", tmp_path / "v"
    _rollout("codex_cli_rs", ["q1"]).write(home / ".codex")
    export(vault, home)
    note = the_note(vault)
    assert _props(note)["client"] == "Codex CLI"
    for old in (home / ".codex").rglob("*.jsonl"):
        old.unlink()
    _rollout("codex_vscode", ["q1", "q2"]).write(home / ".codex")
    export(vault, home)
    assert _props(note)["client"] not in ("Codex CLI", None)
