"""Test isolation: every test gets its own HOME and no assistant variables from the host."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

# The README's `pytest` runs on shared, loaded machines: hypothesis's 200 ms deadline per
# example failed property tests for the machine's load, not the code's. No deadline; the
# linear-time tests bound what must stay fast, and tests/bench measures speed.
hypothesis_settings.register_profile("ccexport", deadline=None)
hypothesis_settings.load_profile("ccexport")

TESTS = Path(__file__).parent
ROOT = TESTS.parent
EXAMPLES_HOME = ROOT / "examples" / "home"
CORPUS = ROOT.parent / "shared" / "corpus"
sys.path.insert(0, str(TESTS))


def _host_variables() -> tuple[str, ...]:
    """Every variable a source reads on the real home (declared by the adapters), and ours."""
    from exporter.adapters import ADAPTERS

    declared = {name for adapter in ADAPTERS for name in adapter.env_vars}
    return tuple(dict.fromkeys(("CCEXPORT_VAULT", "XDG_CONFIG_HOME", *sorted(declared))))


_HOST_VARIABLES = _host_variables()


def _untracked() -> set[str] | None:
    """Files in the checkout that git does not know and does not ignore."""
    import subprocess

    if not (ROOT / ".git").exists():
        return None
    done = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "--others", "--exclude-standard"],
        capture_output=True,
        text=True,
    )
    return set(done.stdout.splitlines()) if done.returncode == 0 else None


_UNTRACKED_BEFORE: set[str] | None = None


def pytest_sessionstart(session: pytest.Session) -> None:
    # A suite started in the background by a shell without job control inherits Ctrl-C
    # ignored, and Python then leaves it so: the tests of Ctrl-C need Python's own handler.
    import signal

    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    # In CI (or on request), the suite must leave the checkout as it found it.
    global _UNTRACKED_BEFORE
    if os.environ.get("CI") or os.environ.get("CCEXPORT_CHECK_TREE"):
        _UNTRACKED_BEFORE = _untracked()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _UNTRACKED_BEFORE is None:
        return
    left = sorted((_untracked() or set()) - _UNTRACKED_BEFORE)
    if left:
        sys.stderr.write("\nthe tests left files in the checkout:\n  " + "\n  ".join(left) + "\n")
        session.exitstatus = 1


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="Rewrite tests/golden from the current output (then review `git diff tests/golden`).",
    )


# Stand-ins for the system's schedulers, first on PATH in every test: no test can reach the
# real crontab or systemd, whatever it calls. The crontab stand-in keeps its table in a file
# of the test's own ($CCEXPORT_TEST_CRONTAB); the others answer as if absent.
_FAKE_CRONTAB = """#!{python}
import os, sys
store = os.environ["CCEXPORT_TEST_CRONTAB"]
if sys.argv[1:] == ["-l"]:
    if not os.path.exists(store):
        sys.stderr.write("no crontab for tester\\n"); sys.exit(1)
    sys.stdout.write(open(store).read())
elif sys.argv[1:] == ["-"]:
    open(store, "w").write(sys.stdin.read())
elif sys.argv[1:] == ["-r"]:
    os.path.exists(store) and os.remove(store)
"""
_ABSENT = '#!/bin/sh\necho "$(basename "$0"): not available in tests" >&2\nexit 1\n'


@pytest.fixture(scope="session")
def stand_in_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("stand-in-bin")
    (folder / "crontab").write_text(_FAKE_CRONTAB.format(python=sys.executable))
    for name in ("systemctl", "launchctl", "schtasks"):
        (folder / name).write_text(_ABSENT)
    for program in folder.iterdir():
        program.chmod(0o755)
    return folder


@pytest.fixture(autouse=True)
def no_real_schedulers(stand_in_bin: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PATH", f"{stand_in_bin}{os.pathsep}{os.environ.get('PATH', '')}")
    table = tmp_path / "crontab.txt"
    monkeypatch.setenv("CCEXPORT_TEST_CRONTAB", str(table))
    monkeypatch.delenv("CCEXPORT_SCHEDULER", raising=False)
    return table


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    for name in _HOST_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture(autouse=True)
def reference_switch_as_the_environment_says():
    """The reference switch is read when a run or a note's build starts; a test that set
    the variable (its monkeypatch undoes that) must not leave the next test's switch on."""
    from exporter.markdown_code import read_reference_switch

    read_reference_switch()
    yield
    read_reference_switch()


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


@pytest.fixture
def corpus() -> Path:
    if not (CORPUS / "claude-code").is_dir():
        pytest.skip(f"the shared corpus is not beside this checkout ({CORPUS}); CI provides it")
    return CORPUS


@pytest.fixture
def load_calls(monkeypatch) -> list[str]:
    """The name of each Claude Code file the pipeline reads, in order."""
    from exporter.adapters import claude_code

    calls: list[str] = []
    original = claude_code.ClaudeCodeAdapter.load

    def counting(self, ref):
        calls.append(ref.main.path.name)
        return original(self, ref)

    monkeypatch.setattr(claude_code.ClaudeCodeAdapter, "load", counting)
    return calls


def load_sessions(adapter, home: Path, env: dict | None = None, real_home: bool = False):
    """Every session (and problem) an adapter finds under ``home``, as the pipeline loads them."""
    from exporter.adapters import SourceContext

    sessions, problems = [], []
    for ref in adapter.discover(SourceContext(home, env or {}, real_home)):
        result = adapter.load(ref)
        sessions += result.sessions
        problems += result.problems
    return sessions, problems


def texts(session, role: str | None = None) -> list[str]:
    """The text parts of a session's messages (of one role, if given), in order."""
    return [
        p.text
        for m in session.messages
        if role in (None, m.role)
        for p in m.parts
        if p.kind == "text"
    ]


def note_files(vault: Path, *, index: bool = False) -> dict[str, bytes]:
    """Every session note in a vault (and the index notes too with ``index``), by path."""
    return {
        p.relative_to(vault).as_posix(): p.read_bytes()
        for p in sorted(vault.rglob("*.md"))
        if ".ccexport" not in p.parts and (index or not _is_index(p)) and not _edit_copy(vault, p)
    }


def _edit_copy(vault: Path, path: Path) -> bool:
    """A copy of an edit saved aside (``editcopies``): no note."""
    return path.relative_to(vault).parts[:2] == ("AI Sessions", "Conflicts")


def _is_index(path: Path) -> bool:
    return path.name == "Projects.md" or path.parent.name == "Projects"


def stamps(vault: Path) -> dict[str, int]:
    return {
        p.relative_to(vault).as_posix(): p.stat().st_mtime_ns
        for p in sorted(vault.rglob("*"))
        if p.is_file() and ".ccexport" not in p.parts
    }


_ONE_WORD_SPAN = re.compile(r"`([^`\s]+)`")


_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_FENCE = re.compile(r"^(?:> ?)*[ \t]*(`{3,}|~{3,})")


def _unescaped_outside_fences(text: str) -> str:
    """Backslash escapes undone, but not in fenced blocks, whose text is as it was (a
    pasted Windows path keeps its ``\\@``)."""
    out, fence = [], None
    for line in text.split("\n"):
        m = _FENCE.match(line)
        if fence is None:
            if m:
                fence = m.group(1)
            out.append(_ESCAPE.sub(r"\1", line) if fence is None else line)
        else:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            out.append(line)
    return "\n".join(out)


def normalize(text: str, *, escaped: bool = True) -> str:
    """Compare what is visible: no escapes, callout prefixes, heading marks, fences, or
    backticks around one word.

    ``escaped``: the text is Markdown written by ccexport (a note), so backslash escapes are
    undone; session text as it was typed is compared with ``escaped=False``."""
    if escaped:
        text = _unescaped_outside_fences(text)
    text = re.sub(r"(?m)^(> ?)+", "", text)
    text = re.sub(r"(?m)^\s*#{1,6}\s+", "", text)
    text = re.sub(r"(?m)^\s*([=-]{3,}|`{3,}[^`\n]*|~{3,}.*)\s*$", "", text)  # (info strings too)
    text = text.replace("![", "[")
    # A typed word that would need an escape is a code span (``src/__init__.py``): the
    # backticks around one word are no text, either side (a source's own too).
    text = _ONE_WORD_SPAN.sub(r"\1", text)
    return " ".join(text.split())


os.environ.setdefault("COLUMNS", "200")


def the_exported_note(home: Path, source: str) -> str:
    """Export ``home``'s one session of ``source`` into ``home/vault`` (UTC) and return its
    note's text."""
    from datetime import UTC

    from exporter.export import ExportOptions, run_export

    vault = home / "vault"
    run_export(ExportOptions(vault=vault, home=home, sources=[source], timezone=UTC))
    (note,) = note_files(vault).values()
    return note.decode()


def deny_writes(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``folder`` as one this user cannot write, as ``os.access`` says (the tests may run as
    root, who can write anywhere)."""
    real_access = os.access
    monkeypatch.setattr(
        os,
        "access",
        lambda p, mode: False if Path(p) == folder and mode & os.W_OK else real_access(p, mode),
    )
    return folder


# What a note says under a tool call of the last reply that has no result (the shipped
# template's words), and where: right below each call named, before any callout after it.
UNANSWERED_SAID = (
    "*No result of this call was recorded (the session ended, or was read, before the tool "
    "returned).*"
)


def said_under(note: str, *calls: str, words: str = UNANSWERED_SAID) -> None:
    """``note`` says ``words`` ("no result" by default) once per call named, each right
    below that call (before any callout after it)."""
    assert note.count(words) == len(calls), note
    at = 0
    for call in calls:
        at = note.index(call, at)
        said, callout = note.index(words, at), note.find("\n> [!", at)
        assert callout == -1 or said < callout, f"not right below {call}"
        at = said + len(words)
