"""Cursor composers that another started, each a ``composerData:<id>`` of the global
database (synthetic, in the shapes public readers of Cursor 2-3 describe): a ``Task``
subagent is its parent's subagent, the call linked to it; a best-of-N alternative is a fork
of its parent; neither is an unlinked conversation of its own."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

from conftest import load_sessions, note_files
from vscode_builder import make_db

from exporter.adapters.cursor import CursorAdapter, composer
from exporter.export import ExportOptions, run_export

CURSOR = Path(".config") / "Cursor" / "User"
PARENT = "b0000000-0000-4000-8000-000000000001"
CHILD = "a0000000-0000-4000-8000-000000000002"  # sorts before its parent on purpose
GRANDCHILD = "90000000-0000-4000-8000-000000000003"
ALTERNATIVE = "80000000-0000-4000-8000-000000000004"
LISTED_ONLY = "70000000-0000-4000-8000-000000000005"
OTHER = "c0000000-0000-4000-8000-000000000006"


def _composer(disk: dict, cid: str, name: str, turns: list[tuple[int, dict]], **fields) -> None:
    headers = []
    for number, (kind, body) in enumerate(turns):
        bid = f"{cid[:4]}-{number}"
        headers.append({"bubbleId": bid, "type": kind})
        disk[f"bubbleId:{cid}:{bid}"] = {"_v": 3, "type": kind, "bubbleId": bid, **body}
    disk[f"composerData:{cid}"] = {
        "_v": 10, "composerId": cid, "name": name, "createdAt": 1759861723898 + len(disk),
        "lastUpdatedAt": 1759863763312, "fullConversationHeadersOnly": headers,
        "subComposerIds": [], "subagentComposerIds": [], **fields,
    }  # fmt: skip


def _task(call_id: str, prompt: str) -> dict:
    args = f'{{"description": "Explore the modules", "prompt": "{prompt}"}}'
    return {"toolFormerData": {"tool": 48, "toolCallId": call_id, "name": "task_v2",
                               "status": "completed", "rawArgs": args, "params": args,
                               "result": '{"output": "a, b"}'}}  # fmt: skip


def _home(tmp_path: Path, **parent_fields) -> Path:
    disk: dict = {}
    _composer(disk, PARENT, "Map the code", [
        (1, {"text": "Which modules are there?"}),
        (2, _task("toolu_1\nfc_1", "List the modules")),
        (2, {"text": "There are two: a and b."}),
    ], workspaceIdentifier={"id": "w1", "uri": {"fsPath": "/home/dev/work/app"}},
        subagentComposerIds=[CHILD], subComposerIds=[ALTERNATIVE], isBestOfNParent=True,
        **parent_fields)  # fmt: skip
    _composer(disk, CHILD, "Explore the modules", [
        (1, {"text": "List the modules"}),
        (2, _task("toolu_2", "Look inside a")),
        (2, {"text": "SUBAGENT-ANSWER a, b"}),
    ], subagentComposerIds=[GRANDCHILD],
        subagentInfo={"subagentType": 1, "parentComposerId": PARENT, "toolCallId": "toolu_1\nfc_1",
                      "subagentTypeName": "explore", "conversationLengthAtSpawn": 0})  # fmt: skip
    _composer(disk, GRANDCHILD, "Look inside a", [
        (1, {"text": "Look inside a"}), (2, {"text": "GRANDCHILD-ANSWER one file"}),
    ], subagentInfo={"parentComposerId": CHILD, "toolCallId": "toolu_2"})  # fmt: skip
    _composer(disk, ALTERNATIVE, "Map the code", [
        (1, {"text": "Which modules are there?"}), (2, {"text": "ALTERNATIVE-ANSWER a, b, c"}),
    ], isBestOfNSubcomposer=True, modelConfig={"modelName": "gpt-5.1-codex"},
        subagentInfo={"parentComposerId": PARENT, "conversationLengthAtSpawn": 0})  # fmt: skip
    _composer(disk, OTHER, "Unrelated", [(1, {"text": "hi"}), (2, {"text": "hello"})])
    make_db(tmp_path / CURSOR / "globalStorage" / "state.vscdb", {}, disk)
    return tmp_path


def _export(home: Path, vault: Path, workers: int = 1):
    options = ExportOptions(vault=vault, home=home, timezone=UTC, workers=workers)
    report = run_export(options)
    notes = {p.rsplit("/", 1)[-1][:-3]: b.decode() for p, b in note_files(vault).items()}
    return report, notes


def test_a_task_subagent_composer_is_its_parents_subagent(tmp_path):
    sessions, problems = load_sessions(CursorAdapter(), _home(tmp_path))
    assert problems == []
    by_id = {s.session_id: s for s in sessions}
    # a parent before those it started, each child right after its parent
    order = [s.session_id for s in sessions]
    assert order.index(PARENT) < order.index(CHILD) < order.index(GRANDCHILD)
    parent, child, grandchild = by_id[PARENT], by_id[CHILD], by_id[GRANDCHILD]
    assert parent.parent_id is None and parent.subagent_ids == (CHILD,)
    assert (child.parent_id, child.agent_label) == (PARENT, "explore")
    assert (grandchild.parent_id, grandchild.agent_label) == (CHILD, None)
    assert child.subagent_ids == (GRANDCHILD,)
    calls = [p for m in parent.messages for p in m.parts if p.kind == "tool_call"]
    assert [c.subagent_id for c in calls] == [CHILD]  # the Task call, by its id's first line
    # a subagent of no folder of its own works in its parent's
    assert (child.project, child.cwd) == ("app", "/home/dev/work/app")
    assert by_id[OTHER].parent_id is None and by_id[OTHER].forked_from is None


def test_a_subagent_composer_note_sits_beside_its_parents_and_both_link(tmp_path):
    report, notes = _export(_home(tmp_path), tmp_path / "v")
    assert not report.failed and report.problems == []
    (parent,) = [n for n, body in notes.items() if "There are two" in body]
    (child,) = [n for n, body in notes.items() if "SUBAGENT-ANSWER" in body]
    (grandchild,) = [n for n, body in notes.items() if "GRANDCHILD-ANSWER" in body]
    assert child.startswith(f"{parent} · agent")  # beside its parent, as other sources'
    assert grandchild.startswith(f"{child} · agent")
    assert f"> Subagent (explore) of [[{parent}]]" in notes[child]
    assert f"> Subagents: [[{child}" in notes[parent]
    assert f"[[{grandchild}" in notes[child] and f"[[{child}]]" in notes[grandchild]


def test_a_best_of_n_alternative_is_a_fork_of_its_parent_not_a_subagent(tmp_path):
    sessions, _problems = load_sessions(CursorAdapter(), _home(tmp_path))
    by_id = {s.session_id: s for s in sessions}
    alternative, parent = by_id[ALTERNATIVE], by_id[PARENT]
    assert (alternative.parent_id, alternative.forked_from) == (None, PARENT)
    assert alternative.models == ("gpt-5.1-codex",)
    assert ALTERNATIVE not in parent.subagent_ids and parent.forks == ((ALTERNATIVE, "forked"),)
    report, notes = _export(tmp_path, tmp_path / "v")
    assert not report.failed
    (parent_note,) = [n for n, body in notes.items() if "There are two" in body]
    (alt_note,) = [n for n, body in notes.items() if "ALTERNATIVE-ANSWER" in body]
    assert f"> Forked from [[{parent_note}]]" in notes[alt_note]
    assert f"> Forked into [[{alt_note}]]" in notes[parent_note]
    assert "Subagent" not in notes[alt_note].split("### ", 1)[0]


def test_a_child_named_only_by_its_parents_list_is_linked_by_the_list(tmp_path):
    """Public readers found the child's own mark not always set: the parent's list says
    which it is (``subagentComposerIds``: a subagent, ``subComposerIds``: an alternative)."""
    disk: dict = {}
    _composer(disk, PARENT, "Map the code", [(1, {"text": "go"}), (2, {"text": "done"})],
              subagentComposerIds=[CHILD], subComposerIds=[LISTED_ONLY])  # fmt: skip
    _composer(disk, CHILD, "Sub", [(1, {"text": "sub task"}), (2, {"text": "sub done"})])
    _composer(disk, LISTED_ONLY, "Alt", [(1, {"text": "go"}), (2, {"text": "alt done"})])
    make_db(tmp_path / CURSOR / "globalStorage" / "state.vscdb", {}, disk)
    sessions, problems = load_sessions(CursorAdapter(), tmp_path)
    by_id = {s.session_id: s for s in sessions}
    assert problems == []
    assert by_id[CHILD].parent_id == PARENT and by_id[CHILD].forked_from is None
    assert by_id[LISTED_ONLY].forked_from == PARENT and by_id[LISTED_ONLY].parent_id is None


def test_damaged_links_cost_only_the_links(tmp_path):
    """A parent that is not stored, a composer naming itself, two naming each other: each
    composer is still exported once; a link that cannot hold is left out."""
    disk: dict = {}
    gone = "ffffffff-0000-4000-8000-00000000dead"
    _composer(disk, CHILD, "Orphan", [(1, {"text": "a"}), (2, {"text": "b"})],
              subagentInfo={"parentComposerId": gone})  # fmt: skip
    _composer(disk, PARENT, "Self", [(1, {"text": "a"}), (2, {"text": "b"})],
              subagentComposerIds=[PARENT], subagentInfo={"parentComposerId": PARENT})  # fmt: skip
    _composer(disk, GRANDCHILD, "Loop 1", [(1, {"text": "a"}), (2, {"text": "b"})],
              subagentInfo={"parentComposerId": OTHER})  # fmt: skip
    _composer(disk, OTHER, "Loop 2", [(1, {"text": "a"}), (2, {"text": "b"})],
              subagentInfo={"parentComposerId": GRANDCHILD})  # fmt: skip
    disk["composerData:" + ALTERNATIVE] = '{"subagentInfo": {"parentComposerId": "' + PARENT
    make_db(tmp_path / CURSOR / "globalStorage" / "state.vscdb", {}, disk)
    sessions, problems = load_sessions(CursorAdapter(), tmp_path)
    assert sorted(s.session_id for s in sessions) == sorted([CHILD, PARENT, GRANDCHILD, OTHER])
    by_id = {s.session_id: s for s in sessions}
    assert by_id[CHILD].parent_id == gone  # its note says the parent has none
    assert by_id[PARENT].parent_id is None and by_id[PARENT].subagent_ids == ()
    loop = [by_id[GRANDCHILD].parent_id, by_id[OTHER].parent_id]
    assert sorted(loop, key=str) == sorted([None, GRANDCHILD], key=str)  # broken once
    assert [p.message for p in problems] == [
        f"composer {ALTERNATIVE}: not JSON (damaged or cut short); skipped"
    ]


def test_a_family_is_never_cut_between_parts(tmp_path, monkeypatch):
    monkeypatch.setattr(composer, "PART_BYTES", 1)  # a part per family
    home = _home(tmp_path)
    adapter = CursorAdapter()
    from exporter.adapters import SourceContext

    ref = next(iter(adapter.discover(SourceContext.for_home(home))))
    parts = adapter.parts(ref)
    assert parts is not None
    families = [p.fact("part") for p in parts[:-1]]
    assert f"{PARENT};{ALTERNATIVE};{CHILD};{GRANDCHILD}" in families  # (key order)
    whole = [s for r in adapter.load_families(ref) for s in r.sessions]
    pieces = [s for part in parts for s in adapter.load(part).sessions]
    assert pieces == whole
    _report, one = _export(home, tmp_path / "v1")
    _report, two = _export(home, tmp_path / "v2", workers=2)
    assert one == two


def test_a_subagent_of_a_composer_holding_no_conversation_says_why_its_parent_has_no_note(
    tmp_path, monkeypatch
):
    """The parent composer is stored with no conversation (none listed; or every bubble
    pruned, which a warning says): it has no note, and its subagent's note says why, in
    both ways of rendering a note (the fast body and the shipped template)."""
    disk: dict = {}
    _composer(disk, PARENT, "Map the code", [], subagentComposerIds=[CHILD, GRANDCHILD])
    _composer(disk, CHILD, "Sub", [(1, {"text": "sub task"}), (2, {"text": "SUB-DONE"})],
              subagentInfo={"parentComposerId": PARENT, "subagentTypeName": "explore"})  # fmt: skip
    _composer(disk, OTHER, "Pruned", [(1, {"text": "a"}), (2, {"text": "b"})],
              subagentComposerIds=[ALTERNATIVE])  # fmt: skip
    for key in [k for k in disk if k.startswith(f"bubbleId:{OTHER}:")]:
        del disk[key]  # (Cursor pruned them)
    _composer(disk, ALTERNATIVE, "Sub 2", [(1, {"text": "task 2"}), (2, {"text": "SUB2-DONE"})],
              subagentInfo={"parentComposerId": OTHER})  # fmt: skip
    make_db(tmp_path / CURSOR / "globalStorage" / "state.vscdb", {}, disk)
    for reference in ("", "1"):
        monkeypatch.setenv("CCEXPORT_REFERENCE_RENDER", reference)
        report, notes = _export(tmp_path, tmp_path / f"vault{reference}")
        assert not report.failed
        assert [p.message for p in report.problems] == [
            f"composer {OTHER}: 2 of 2 conversation headers name no stored bubble: left out"
            f" (the first: header 1, bubble {OTHER[:4]}-0)"
        ]
        assert len(notes) == 2  # the subagents alone
        (child,) = [body for body in notes.values() if "SUB-DONE" in body]
        why = "which has no note: Cursor keeps no messages of it\n"
        assert f"> Subagent (explore) of session `{PARENT}`, {why}" in child
        (second,) = [body for body in notes.values() if "SUB2-DONE" in body]
        assert f"> Subagent of session `{OTHER}`, {why}" in second


def test_a_subagent_of_a_composer_not_stored_says_only_that_its_parent_has_no_note(tmp_path):
    disk: dict = {}
    _composer(disk, CHILD, "Sub", [(1, {"text": "sub task"}), (2, {"text": "SUB-DONE"})],
              subagentInfo={"parentComposerId": PARENT})  # fmt: skip
    make_db(tmp_path / CURSOR / "globalStorage" / "state.vscdb", {}, disk)
    _report, notes = _export(tmp_path, tmp_path / "v")
    (child,) = notes.values()
    # (deleted, or never stored here: why is not known)
    assert f"> Subagent of session `{PARENT}`, which has no note\n" in child
