"""An Antigravity conversation no cache names a workspace for takes its project from the
folder holding every path its tool calls named: not a home, a temporary folder or a root,
and none where the paths lie under several roots. The cache's workspace, when there is one,
still decides, and the cwd is never guessed."""

from __future__ import annotations

import json
import shutil
from datetime import UTC
from pathlib import Path, PurePosixPath

import pytest
from conftest import load_sessions, note_files
from hypothesis import given, settings
from hypothesis import strategies as st
from test_antigravity_adapter import ROOT, step, transcript

from exporter.adapters.antigravity import AntigravityAdapter
from exporter.adapters.antigravity_paths import folder_of_tool_paths
from exporter.export import ExportOptions, run_export
from exporter.model import Message, ToolCallPart

CORPUS_SMALL = "jazzyalex__agent-sessions__stage0-antigravity-cli_small.jsonl"
CORPUS_DRIFT = "jazzyalex__agent-sessions__stage0-antigravity-cli_schema_drift.jsonl"


def _calls(*calls: tuple[str, dict]) -> list[dict]:
    """A prompt, then one reply calling each tool (argument values JSON-encoded, as the
    transcript has them), and a closing reply."""
    encoded = [{"name": n, "args": {k: json.dumps(v) for k, v in a.items()}} for n, a in calls]
    return [
        step(0, "USER_INPUT", "USER_EXPLICIT", content="<USER_REQUEST>\nGo\n</USER_REQUEST>"),
        step(1, "PLANNER_RESPONSE", tool_calls=encoded),
        step(2, "PLANNER_RESPONSE", content="Done."),
    ]


def _project(home: Path, steps: list[dict]) -> str | None:
    transcript(home, steps)
    (session,), problems = load_sessions(AntigravityAdapter(), home)
    assert problems == []
    assert session.cwd is None  # a guess names the project, not where the agent ran
    return session.project


LIST = "list_dir"
VIEW = "view_file"
WRITE = "write_to_file"
RUN = "run_command"


@pytest.mark.parametrize(
    ("calls", "project"),
    [
        ([(LIST, {"DirectoryPath": "/tmp/repo"})], "repo"),
        ([(WRITE, {"TargetFile": "/tmp/repo/notes.md"})], "repo"),  # a file: its folder
        (
            [
                (LIST, {"DirectoryPath": "/home/dev/work/api"}),
                (VIEW, {"AbsolutePath": "/home/dev/work/api/src/app.py"}),
                (RUN, {"CommandLine": "pytest", "Cwd": "/home/dev/work/api/tests"}),
            ],
            "api",
        ),
        (
            [
                (VIEW, {"AbsolutePath": "/home/dev/work/api/src/app.py"}),
                (WRITE, {"TargetFile": "/home/dev/work/api/tests/test_app.py"}),
            ],
            "api",
        ),
        (  # the agent's own plan in its brain is no project's file
            [
                (VIEW, {"AbsolutePath": "/home/dev/work/api/README.md"}),
                (WRITE, {"TargetFile": "/home/dev/.gemini/antigravity/brain/c1/task.md"}),
            ],
            "api",
        ),
        ([(VIEW, {"AbsolutePath": "C:\\Users\\dev\\Shop\\app.py"})], "Shop"),
        (
            [
                (LIST, {"DirectoryPath": "file:///c%3A/Users/dev/Shop"}),
                (VIEW, {"AbsolutePath": "c:\\users\\dev\\shop\\src\\app.py"}),
            ],
            "Shop",
        ),
        # a home, a temporary folder or a root holds many projects: none
        ([(VIEW, {"AbsolutePath": "/tmp/scratch.txt"})], None),
        ([(LIST, {"DirectoryPath": "/tmp"})], None),
        ([(VIEW, {"AbsolutePath": "/home/dev/.bashrc"})], None),
        ([(LIST, {"DirectoryPath": "/Users/dev"})], None),
        ([(VIEW, {"AbsolutePath": "C:\\Users\\dev\\notes.txt"})], None),
        ([(LIST, {"DirectoryPath": "/"})], None),
        (  # two projects under one home: their common folder is the home
            [
                (VIEW, {"AbsolutePath": "/home/dev/api/a.py"}),
                (VIEW, {"AbsolutePath": "/home/dev/web/b.ts"}),
            ],
            None,
        ),
        (  # several roots
            [
                (VIEW, {"AbsolutePath": "/srv/api/a.py"}),
                (VIEW, {"AbsolutePath": "/opt/web/b.ts"}),
            ],
            None,
        ),
        (
            [
                (VIEW, {"AbsolutePath": "C:\\work\\api\\a.py"}),
                (VIEW, {"AbsolutePath": "D:\\work\\api\\b.py"}),
            ],
            None,
        ),
        (
            [
                (VIEW, {"AbsolutePath": "/srv/api/a.py"}),
                (VIEW, {"AbsolutePath": "C:\\srv\\api\\b.py"}),
            ],
            None,
        ),
        # no place of its own: relative, "~", "..", a value that is no text
        ([(VIEW, {"AbsolutePath": "src/app.py"})], None),
        ([(LIST, {"DirectoryPath": "~/work/api"})], None),
        ([(LIST, {"DirectoryPath": "/srv/api/../../etc"})], None),
        ([(LIST, {"DirectoryPath": ["/srv/api"]})], None),
        ([(RUN, {"CommandLine": "ls /srv/api"})], None),  # a command line is not read
    ],
)
def test_the_project_is_the_folder_holding_every_path_the_tools_named(tmp_path, calls, project):
    assert _project(tmp_path, _calls(*calls)) == project


def test_a_folder_the_cache_names_decides_over_the_tool_paths(tmp_path):
    transcript(tmp_path, _calls((LIST, {"DirectoryPath": "/tmp/repo"})))
    cache = tmp_path / ROOT / "cache" / "last_conversations.json"
    cache.parent.mkdir(parents=True)
    cache.write_text(json.dumps({"/home/dev/work/api": "5b6c7d8e-1f2a-4b3c-9d4e-5f6a7b8c9d0e"}))
    (session,), _ = load_sessions(AntigravityAdapter(), tmp_path)
    assert (session.cwd, session.project) == ("/home/dev/work/api", "api")


@pytest.fixture
def antigravity_corpus(corpus: Path) -> Path:
    folder = corpus / "antigravity"
    if not (folder / CORPUS_SMALL).is_file():
        pytest.skip(f"the corpus's Antigravity transcripts are not in {folder}")
    return folder


@pytest.mark.corpus
def test_the_corpus_transcript_is_filed_under_the_folder_its_tools_named(
    antigravity_corpus, tmp_path
):
    """Its calls name /tmp/repo (``DirectoryPath``, ``TargetFile``); the drifted one names
    no path and keeps no project."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    for name in (CORPUS_SMALL, CORPUS_DRIFT):
        brain = home / ROOT / "brain" / name.rsplit("-", 1)[-1].removesuffix(".jsonl")
        dest = brain / ".system_generated" / "logs" / "transcript.jsonl"
        dest.parent.mkdir(parents=True)
        shutil.copyfile(antigravity_corpus / name, dest)
    sessions, _ = load_sessions(AntigravityAdapter(), home)
    by_id = {s.session_id: s for s in sessions}
    assert (by_id["cli_small"].project, by_id["cli_small"].cwd) == ("repo", None)
    assert by_id["cli_schema_drift"].project is None
    run_export(ExportOptions(vault=vault, home=home, sources=["antigravity"], timezone=UTC))
    notes = {path: body.decode() for path, body in note_files(vault).items()}
    (small,) = [body for path, body in notes.items() if "/repo/" in path]
    assert "project: repo\n" in small and "project/repo" in small and "\ncwd:" not in small


_names = st.sampled_from(["home", "dev", "tmp", "api", "src", "Users", "repo", ".gemini"])
_paths = st.lists(_names, min_size=0, max_size=4).map(lambda names: "/" + "/".join(names))
_named = st.lists(
    st.tuples(st.sampled_from(["DirectoryPath", "AbsolutePath"]), _paths), min_size=1, max_size=5
)


@settings(max_examples=200, deadline=None)
@given(_named, st.randoms(use_true_random=False))
def test_a_project_found_holds_every_path_named_whatever_their_order(named, rnd):
    def found(pairs):
        call = ToolCallPart("tool", dict(pairs[:1]), "c")
        rest = [ToolCallPart("tool", dict([pair]), f"c{n}") for n, pair in enumerate(pairs[1:])]
        return folder_of_tool_paths([Message("assistant", (call, *rest), "m")])

    folder = found(named)
    shuffled = list(named)
    rnd.shuffle(shuffled)
    assert found(shuffled) == folder
    if folder is None:
        return
    assert folder not in ("/", "/tmp", "/home", "/home/dev", "/Users", "/Users/dev")
    for key, path in named:
        if ".gemini" in PurePosixPath(path).parts:
            continue
        place = PurePosixPath(path) if key == "DirectoryPath" else PurePosixPath(path).parent
        assert place == PurePosixPath(folder) or PurePosixPath(folder) in place.parents
