"""The Cline family's task index, ``state/taskHistory.json`` (``HistoryItem[]``, FORMATS.md
§6.2): titles, working folders and models read at discovery. A document of the wrong shape
is said like an unreadable one, and a damaged entry once for the file; the tasks they may
have described keep the facts their notes were last made from (a title does not flip to
the first prompt and back). The shapes the extensions write say nothing.

The entries follow Cline's ``HistoryItem`` (``apps/vscode/src/shared/HistoryItem.ts``) and
Roo Code's ``historyItemSchema`` (``packages/types/src/history.ts``): synthetic, as the
builder's."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path
from typing import Any

import cline_builder as cb
import pytest
import yaml
from conftest import load_sessions, note_files

from exporter.adapters import SessionRef, SourceContext
from exporter.adapters.cline import ClineAdapter, RooCodeAdapter
from exporter.export import ExportOptions, run_export
from exporter.outcome import ExportReport

TASK = "1762500000000"
OTHER = "1762500000001"
GOOD = cb.history_item(TASK, "Add a --verbose flag", cwdOnTaskInitialization="/w/cli",
                       modelId="claude-sonnet-4-5")  # fmt: skip
KEPT = "until it can be read, the titles, working folders, models and context truncations it "
KEPT += "gives are kept from the last run"


def a_task(root: Path, task_id: str = TASK, replies: int = 1) -> None:
    """A task whose first prompt is not its index title (a lost title would show)."""
    ui = [cb.say(0, "task", "please add a verbose flag to cli.py, thanks")]
    ui += [cb.say(n, "text", f"Reply {n}.") for n in range(1, replies + 1)]
    cb.task(root, task_id, ui=ui)


def export(home: Path, vault: Path) -> ExportReport:
    return run_export(ExportOptions(vault=vault, home=home, sources=["cline"], timezone=UTC))


def notes(vault: Path) -> dict[str, dict[str, Any]]:
    """Each note's frontmatter, by its path in the vault."""
    return {
        key: yaml.safe_load(body.decode().split("---\n")[1])
        for key, body in note_files(vault).items()
    }


def warnings(report: ExportReport) -> list[tuple[str, str]]:
    return [(p.path, p.message) for p in report.problems if p.severity == "warning"]


def discovered(home: Path, adapter: Any = None) -> dict[str, SessionRef]:
    adapter = adapter or ClineAdapter()
    return {r.session_id: r for r in adapter.discover(SourceContext(home, {}, False))}


# --- a title at stake, through a whole export -------------------------------------------------


def test_a_damaged_entry_keeps_its_task_s_title_and_path_until_it_is_mended(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    root = cb.storage(home, cb.CLINE)
    index = root / "state" / "taskHistory.json"
    a_task(root)
    cb.history(root, [GOOD])
    assert warnings(export(home, vault)) == []
    ((path, first),) = notes(vault).items()
    assert (first["title"], first["cwd"]) == ("Add a --verbose flag", "/w/cli")
    # The task goes on while its entry is damaged: the note is made again, from the facts
    # the last run read (its transcript is new, its title and folder are not).
    a_task(root, replies=2)
    cb.history(root, [{**GOOD, "task": ["Add a --verbose flag"], "cwdOnTaskInitialization": 7}])
    report = export(home, vault)
    assert warnings(report) == [(str(index), (
        'entry 1 (task "1762500000000"): its task is a list, not text and its '
        f"cwdOnTaskInitialization is a number, not text; {KEPT}"))]  # fmt: skip
    assert report.per_source["cline"].updated == 1
    ((same, after),) = notes(vault).items()
    assert same == path and after["messages"] > first["messages"]
    assert (after["title"], after["aliases"], after["cwd"], after["model"]) == (
        first["title"], first["aliases"], "/w/cli", first["model"],
    )  # fmt: skip
    again = export(home, vault)  # said on every run while it lasts; the task is unchanged
    assert warnings(again) == warnings(report) and again.per_source["cline"].skipped == 1
    cb.history(root, [GOOD])
    mended = export(home, vault)
    assert warnings(mended) == [] and notes(vault) == {path: after}


def test_the_other_facts_of_a_damaged_entry_are_read_this_run(tmp_path):
    """Damage costs only itself: a renamed task whose model is damaged takes its new title."""
    home, vault = tmp_path / "home", tmp_path / "v"
    root = cb.storage(home, cb.CLINE)
    a_task(root)
    cb.history(root, [GOOD])
    export(home, vault)
    cb.history(root, [{**GOOD, "task": "Add a --verbose flag, renamed", "modelId": {"id": "m"}}])
    report = export(home, vault)
    assert [why.split(";")[0] for _, why in warnings(report)] == [
        'entry 1 (task "1762500000000"): its modelId is an object, not text'
    ]
    ((_, note),) = notes(vault).items()
    assert (note["title"], note["cwd"], note["model"]) == (
        "Add a --verbose flag, renamed", "/w/cli", "claude-sonnet-4-5",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("document", "kind"),
    [
        ("{}", "an object"),
        ('{"tasks": []}', "an object"),
        ("3", "a number"),
        ("null", "null"),
        ('"[]"', "text"),
    ],
)
def test_an_index_that_holds_no_list_is_said_and_its_facts_kept(tmp_path, document, kind):
    home, vault = tmp_path / "home", tmp_path / "v"
    root = cb.storage(home, cb.CLINE)
    index = root / "state" / "taskHistory.json"
    a_task(root)
    cb.history(root, [GOOD])
    export(home, vault)
    first = notes(vault)
    index.write_text(document, encoding="utf-8")
    report = export(home, vault)
    assert warnings(report) == [(str(index), f"holds {kind}, not a list of tasks; {KEPT}")]
    assert notes(vault) == first and report.per_source["cline"].written == 0
    cb.history(root, [GOOD])
    assert warnings(export(home, vault)) == [] and notes(vault) == first


def test_a_task_first_seen_with_its_entry_damaged_gets_its_own_files_values(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    root = cb.storage(home, cb.CLINE)
    a_task(root)
    cb.history(root, [{**GOOD, "task": 12}])
    report = export(home, vault)
    assert len(warnings(report)) == 1
    ((_, note),) = notes(vault).items()
    assert note["title"] == "please add a verbose flag to cli.py, thanks"  # none better known
    assert note["cwd"] == "/w/cli"  # (the entry's folder is whole)


# --- which tasks a damaged entry may have described ---------------------------------------------


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        ("a task", "entry 2 is text, not an object"),
        (["a", "list"], "entry 2 is a list, not an object"),
        (None, "entry 2 is null, not an object"),
        ({"ts": cb.START, "task": "no id"}, "entry 2 has no id"),
        ({"id": "", "task": "an empty id"}, "entry 2 has no id"),
        ({"id": int(OTHER), "task": "a number"}, "entry 2 has an id that is a number, not text"),
        ({"id": [OTHER], "task": "a list"}, "entry 2 has an id that is a list, not text"),
    ],
)
def test_an_entry_that_names_no_task_marks_every_task_the_index_does_not_name(
    tmp_path, entry, said
):
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    for task_id in (TASK, OTHER, "1762500000002"):
        a_task(root, task_id)
    cb.history(root, [GOOD, entry, cb.history_item("1762500000002", "Third")])
    refs = discovered(home)
    assert refs[TASK].unread_index is None and refs["1762500000002"].unread_index is None
    problem = refs[OTHER].unread_index
    assert problem is not None and problem.message == f"{said}; {KEPT}"
    assert problem.path == str(root / "state" / "taskHistory.json")
    assert refs[TASK].fact("title") == "Add a --verbose flag"


def test_an_entry_that_names_its_task_marks_that_task_only(tmp_path):
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    for task_id in (TASK, OTHER, "1762500000002"):
        a_task(root, task_id)
    cb.history(root, [GOOD, cb.history_item(OTHER, "Second", ts="yesterday")])
    refs = discovered(home)
    assert [r.session_id for r in refs.values() if r.unread_index] == [OTHER]
    assert refs[OTHER].unread_index.message == (
        f'entry 2 (task "1762500000001"): its ts is "yesterday", not a number; {KEPT}'
    )
    assert refs[OTHER].fact("title") == "Second" and refs[OTHER].fact("updated") is None


def test_damaged_entries_are_said_once_for_the_file_with_how_many_and_the_first(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    root = cb.storage(home, cb.CLINE)
    index = root / "state" / "taskHistory.json"
    for task_id in (TASK, OTHER, "1762500000002"):
        a_task(root, task_id)
    cb.history(root, [
        GOOD,
        cb.history_item(OTHER, "Second", modelId=4),
        "junk",
        cb.history_item("1762500000002", "Third", workspace=["/w"], ts=True),
        cb.history_item("1762500000009", "No folder", task=None, modelId=False),
    ])  # fmt: skip
    report = export(home, vault)
    assert warnings(report) == [(str(index), (
        'entry 2 (task "1762500000001"): its modelId is a number, not text (the first of 4 '
        f"damaged entries); {KEPT}"))]  # fmt: skip
    refs = discovered(home)
    assert refs[TASK].unread_index is None
    marked = [r.unread_index for r in refs.values() if r.session_id != TASK]
    assert len(marked) == 2 and marked[0] is marked[1]  # one Problem, said once


def test_a_long_id_is_clipped_in_the_warning(tmp_path):
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    long_id = " ".join(["word"] * 40)
    a_task(root, long_id)
    cb.history(root, [cb.history_item(long_id, "Long", modelId=1)])
    problem = discovered(home)[long_id].unread_index
    assert problem.message.startswith('entry 1 (task "word word ')
    assert long_id not in problem.message and len(problem.message) < len(KEPT) + 100


def test_a_ts_of_true_no_longer_fails_the_task(tmp_path):
    """``True`` was taken for a number: the task's time read as ``float("True")`` and the
    task (from the model's history, which holds no times) could not be read."""
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    cb.task(root, "6f1c3a52-roo", api=[cb.message("user", "<task>Why?</task>"),
                                       cb.message("assistant", "Because.")])  # fmt: skip
    cb.history(root, [cb.history_item("6f1c3a52-roo", "Why?", ts=True)])
    (session,), problems = load_sessions(ClineAdapter(), home)
    assert session.title == "Why?" and problems == []
    assert discovered(home)["6f1c3a52-roo"].unread_index.message.startswith(
        'entry 1 (task "6f1c3a52-roo"): its ts is true, not a number;'
    )


# --- what the extensions write says nothing -----------------------------------------------------


def cline_entry(task_id: str) -> dict[str, Any]:
    """Every field of Cline's ``HistoryItem``, the optional ones too."""
    return cb.history_item(
        task_id, "Port the parser", ulid="01JC0000000000000000000000", cacheWrites=10,
        cacheReads=20, size=4096, shadowGitConfigWorkTree="/w/parser",
        cwdOnTaskInitialization="/w/parser", conversationHistoryDeletedRange=[2, 1],
        isFavorited=True, checkpointManagerErrorMessage="", modelId="claude-sonnet-4-5",
        apiRequests=3, usageEntries=[{"ts": cb.START, "tokensIn": 1}], isLegacy=False,
    )  # fmt: skip


def roo_entry(task_id: str) -> dict[str, Any]:
    """Roo Code's ``historyItemSchema`` (Zoo Code's and Kilo Code's alike)."""
    return cb.history_item(
        task_id, "Explain the build", number=3, title="Build", workspace="C:\\w\\build",
        mode="architect", toolProtocol="native", apiConfigName="default", status="delegated",
        rootTaskId=task_id, parentTaskId=None, childIds=["c1"], delegatedToId="c1",
        awaitingChildId="c1", completionResultSummary="done", cacheWrites=0, cacheReads=0,
    )  # fmt: skip


@pytest.mark.parametrize(
    "entries",
    [
        [],
        [cline_entry(TASK)],
        [roo_entry(TASK)],
        # the optional fields left out, null, or empty (an empty first prompt: no title)
        [{"id": TASK, "ts": cb.START, "task": "", "tokensIn": 0, "tokensOut": 0, "totalCost": 0}],
        [
            cb.history_item(
                TASK,
                "x",
                cwdOnTaskInitialization=None,
                modelId=None,
                workspace=None,
                conversationHistoryDeletedRange=None,
            )
        ],
        [{"id": TASK}],
        # an entry for a task whose folder is gone, and a task twice
        [cline_entry("1762400000000"), cline_entry(TASK), cline_entry(TASK)],
        # a time written as text, or with a fraction
        [cb.history_item(TASK, "x", ts=str(cb.START))],
        [cb.history_item(TASK, "x", ts=cb.START + 0.5)],
    ],
)
def test_the_shapes_the_extensions_write_say_nothing(tmp_path, entries):
    home, vault = tmp_path / "home", tmp_path / "v"
    root = cb.storage(home, cb.CLINE)
    a_task(root)
    cb.history(root, entries)
    assert all(r.unread_index is None for r in discovered(home).values())
    report = export(home, vault)
    assert report.problems == []


def test_roo_code_s_workspace_and_a_time_as_text_are_read(tmp_path):
    home = tmp_path / "home"
    root = cb.storage(home, cb.ROO)
    a_task(root, "6f1c3a52-roo")
    cb.history(root, [{**roo_entry("6f1c3a52-roo"), "ts": str(cb.START)}])
    ref = discovered(home, RooCodeAdapter())["6f1c3a52-roo"]
    assert ref.unread_index is None
    assert (ref.fact("title"), ref.fact("cwd"), ref.fact("updated")) == (
        "Explain the build", "C:\\w\\build", str(cb.START),
    )  # fmt: skip


def test_a_damaged_entry_of_a_task_that_is_gone_costs_nothing_and_is_not_said(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    root = cb.storage(home, cb.CLINE)
    a_task(root)
    cb.history(root, [GOOD, cb.history_item("1762400000000", "Deleted", modelId=3)])
    assert export(home, vault).problems == []


def test_a_long_damaged_truncation_range_is_clipped_in_its_warning(tmp_path):
    """It was quoted whole: a range of 2,000 numbers made a warning of 10 KB."""
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    a_task(root)
    cb.history(root, [{**GOOD, "conversationHistoryDeletedRange": list(range(2000))}])
    _, (problem,) = load_sessions(ClineAdapter(), home)
    assert problem.message.startswith(
        "task 1762500000000: conversationHistoryDeletedRange [0, 1, 2, "
    )
    assert problem.message.endswith(
        "… is not a pair of message indices [start, end]; the note has no marker of that "
        "context truncation"
    )
    assert len(problem.message) < 250


def test_a_task_with_one_time_known_has_a_start_and_no_end(tmp_path):
    """An old build's task: no time in its files, its index ``ts`` its id's millisecond:
    the start alone, not "07:20 → 07:20", a span of no length (review33 6)."""
    home, vault = tmp_path / "home", tmp_path / "v"
    root = cb.storage(home, cb.KILO)
    api = [
        cb.message("user", "<task>\nadd a verbose flag\n</task>"),
        cb.message("assistant", "Done."),
    ]
    cb.task(root, str(cb.START), api=api)
    cb.history(root, [cb.history_item(str(cb.START), "add a verbose flag")])
    run_export(ExportOptions(vault=vault, home=home, sources=["kilo-code"], timezone=UTC))
    (fm,) = notes(vault).values()
    assert "created" in fm and "updated" not in fm
    (body,) = note_files(vault).values()
    info = next(line for line in body.decode().splitlines() if line.startswith("> [!info]"))
    assert " 07:20" in info and "→" not in info
