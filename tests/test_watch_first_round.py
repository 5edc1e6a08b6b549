"""``ccexport watch`` with a wrong ``--home`` printed "Watching for changes …" and nothing
more, for as long as it ran: its first round found no session and was not worth a line
(review22 F6). The first round always prints its summary, and where it looked when it
found nothing, as the export says it; later rounds print only what changed."""

from __future__ import annotations

import re

from test_sync import write_sessions
from typer.testing import CliRunner

from exporter import watch as watch_module
from exporter.cli import app

runner = CliRunner()
STAMP = r"\[\d\d:\d\d:\d\d\] "
REAL_WATCH = watch_module.watch


def _watch(monkeypatch, *args: object, rounds: int = 3):
    """``ccexport watch`` for ``rounds`` polls of the real loop, then Ctrl-C."""

    def some_rounds(options, events, interval, gone):
        REAL_WATCH(options, events, interval=0, debounce=0, sleep=lambda s: None, rounds=rounds,
                   gone=gone)  # fmt: skip
        raise KeyboardInterrupt

    monkeypatch.setattr(watch_module, "watch", some_rounds)
    return runner.invoke(app, ["watch", *(str(a) for a in args)])


def test_a_first_round_that_finds_no_session_says_where_it_looked(tmp_path, monkeypatch):
    empty = tmp_path / "empty-home"
    empty.mkdir()
    result = _watch(monkeypatch, "--vault", tmp_path / "v", "--home", empty)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("Watching for changes")
    assert re.fullmatch(STAMP + "0 sessions found, 0 created, 0 updated, 0 unchanged", lines[1])
    pasted = f"ccexport --vault {tmp_path / 'v'} --home {empty} sources"  # (this run's)
    assert lines[2:] == [
        f"No sessions found under {empty} (is --home right?): `{pasted}` lists where "
        "each assistant's history was looked for.",
        "Stopped.",
    ]  # said once: the later rounds found nothing new to say


def test_a_first_round_that_changes_nothing_says_so_then_only_changes(tmp_path, monkeypatch):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_sessions(home, 2)
    assert runner.invoke(app, ["--vault", str(vault), "--home", str(home)]).exit_code == 0
    result = _watch(monkeypatch, "--vault", vault, "--home", home)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert re.fullmatch(STAMP + "2 sessions found, 0 created, 0 updated, 2 unchanged", lines[1])
    assert lines[2:] == ["Stopped."]  # no source changed: no line for one
    quiet = _watch(monkeypatch, "--vault", vault, "--home", home, "--quiet")
    assert quiet.exit_code == 0 and quiet.output == ""
