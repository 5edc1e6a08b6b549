"""With no ``timezone`` set, a vault's notes are dated in the zone of its first export, kept
in its state: a later run in another zone (a nightly job without the shell's ``TZ``, a
laptop abroad) dates the notes it rewrites as the others are dated."""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from aider_builder import AiderLog
from claude_builder import ClaudeSession
from conftest import note_files

from exporter.export import ExportOptions, run_export
from exporter.zones import ZONE_FILE, keep_zone, kept_zone, machine_zone_name, with_vault_zone

PROJECTS = Path(".claude", "projects", "-w-proj")
A, B = "aaaaaaaa-1111-4222-8333-444444444444", "bbbbbbbb-1111-4222-8333-444444444444"


@pytest.fixture
def machine_zone(monkeypatch):
    """Set this process's zone as a machine's ``TZ`` sets it."""

    def set_zone(name: str) -> None:
        monkeypatch.setenv("TZ", name)
        time.tzset()

    yield set_zone
    monkeypatch.undo()
    time.tzset()


def _session(home: Path, sid: str, start: str, prompts: int) -> None:
    s = ClaudeSession(sid, "/w/proj", start=start)
    for n in range(prompts):
        s.user(f"question {n} of {sid[0]}")
        s.assistant(f"answer {n}")
    s.write(home / PROJECTS / f"{sid}.jsonl")


def _created(vault: Path) -> dict[str, str]:
    found = {}
    for path, data in note_files(vault).items():
        for line in data.decode().splitlines():
            if line.startswith("created: "):
                found[path.rsplit(" ", 1)[-1]] = line.removeprefix("created: ")
    return found


def test_a_run_in_another_zone_dates_a_grown_session_as_the_vault_does(tmp_path, machine_zone):
    home, vault = tmp_path / "home", tmp_path / "vault"
    _session(home, A, "2026-11-20T23:30:00Z", 1)
    _session(home, B, "2026-11-20T22:00:00Z", 1)
    machine_zone("Asia/Tokyo")  # the person's shell
    run_export(ExportOptions(vault=vault, home=home))
    first = _created(vault)
    assert first == {"aaaaaaaa.md": "2026-11-21T08:30:05", "bbbbbbbb.md": "2026-11-21T07:00:05"}
    _session(home, A, "2026-11-20T23:30:00Z", 2)  # A grows
    machine_zone("UTC")  # the nightly job, without the shell's TZ
    report = run_export(ExportOptions(vault=vault, home=home))
    assert not report.problems
    assert _created(vault) == first
    text = next(d for p, d in note_files(vault).items() if p.endswith("aaaaaaaa.md")).decode()
    assert "question 1 of a" in text  # it was rewritten, in Tokyo time
    assert (vault / ZONE_FILE).read_text() == "Asia/Tokyo\n"


def test_a_timezone_set_wins_and_leaves_the_kept_zone(tmp_path, machine_zone):
    from zoneinfo import ZoneInfo

    home, vault = tmp_path / "home", tmp_path / "vault"
    _session(home, A, "2026-11-20T23:30:00Z", 1)
    machine_zone("Asia/Tokyo")
    run_export(ExportOptions(vault=vault, home=home))
    run_export(ExportOptions(vault=vault, home=home, timezone=ZoneInfo("Europe/Berlin")))
    assert _created(vault) == {"aaaaaaaa.md": "2026-11-21T00:30:05"}
    assert kept_zone(vault) == "Asia/Tokyo"


def test_the_machines_zone_by_name(tmp_path):
    zoneinfo = tmp_path / "usr" / "share" / "zoneinfo" / "Europe"
    zoneinfo.mkdir(parents=True)
    (zoneinfo / "Berlin").write_bytes(b"TZif")
    localtime = tmp_path / "localtime"
    localtime.symlink_to(zoneinfo / "Berlin")
    missing = tmp_path / "none"
    debian = tmp_path / "timezone"
    debian.write_text("America/New_York\n")
    assert machine_zone_name({"TZ": "Asia/Tokyo"}, missing, missing) == "Asia/Tokyo"
    assert machine_zone_name({"TZ": ":Asia/Tokyo"}, missing, missing) == "Asia/Tokyo"
    assert machine_zone_name({"TZ": ""}, missing, missing) == "UTC"
    tz_file = {"TZ": ":/usr/share/zoneinfo/Asia/Tokyo"}
    assert machine_zone_name(tz_file, missing, missing) == "Asia/Tokyo"
    assert machine_zone_name({"TZ": "CET-1CEST"}, localtime, debian) is None  # no name
    assert machine_zone_name({}, localtime, debian) == "Europe/Berlin"
    assert machine_zone_name({}, missing, debian) == "America/New_York"
    assert machine_zone_name({}, missing, missing) is None


def test_a_machine_without_a_named_zone_keeps_its_local_time(tmp_path):
    options = ExportOptions(vault=tmp_path)
    none = with_vault_zone(options, None)
    assert (none.options, none.keep, none.problems) == (options, "", [])
    keep_zone(tmp_path, "Asia/Tokyo")
    kept = with_vault_zone(options, "UTC")
    assert (str(kept.options.timezone), str(kept.options.local_zone)) == ("Asia/Tokyo",) * 2
    assert (kept.keep, kept.problems) == ("", [])


@pytest.mark.parametrize("held", [b"Asia/Tokio\n", b"", b"\xff\xfe garbage", b"x" * 100_000])
def test_a_kept_zone_not_known_here_is_replaced_and_said(tmp_path, held):
    options = ExportOptions(vault=tmp_path)
    (tmp_path / ZONE_FILE).parent.mkdir()
    (tmp_path / ZONE_FILE).write_bytes(held)
    found = with_vault_zone(options, "UTC")
    assert str(found.options.timezone) == "UTC" and found.keep == "UTC"
    (problem,) = found.problems
    assert problem.path == str(tmp_path / ZONE_FILE) and problem.severity == "warning"
    assert "not the name of a time zone known here" in problem.message
    assert "dated in UTC, this machine's zone, which it keeps from now" in problem.message
    assert len(problem.message) < 300  # a huge file is quoted in part


def test_a_zone_that_cannot_be_kept_is_said_and_the_run_goes_on(tmp_path, machine_zone):
    home, vault = tmp_path / "home", tmp_path / "vault"
    _session(home, A, "2026-11-20T23:30:00Z", 1)
    (vault / ZONE_FILE).mkdir(parents=True)  # a folder where the file belongs
    machine_zone("Asia/Tokyo")
    report = run_export(ExportOptions(vault=vault, home=home))
    assert report.total("created") == 1 and not report.failed
    assert _created(vault) == {"aaaaaaaa.md": "2026-11-21T08:30:05"}
    messages = [p.message for p in report.problems]
    assert any("could not keep the vault's time zone" in m for m in messages), messages


def test_tz_naming_a_file_or_the_machines_zone(tmp_path):
    missing = tmp_path / "none"
    zoneinfo = tmp_path / "usr" / "share" / "zoneinfo" / "Europe"
    zoneinfo.mkdir(parents=True)
    (zoneinfo / "Berlin").write_bytes(b"TZif")
    localtime = tmp_path / "localtime"
    localtime.symlink_to(zoneinfo / "Berlin")
    assert machine_zone_name({"TZ": f":{localtime}"}, missing, missing) == "Europe/Berlin"
    # "localtime" names whatever the machine's zone becomes: the machine's own is kept
    assert machine_zone_name({"TZ": "localtime"}, localtime, missing) == "Europe/Berlin"
    assert machine_zone_name({"TZ": ":posixrules"}, missing, missing) is None


def test_a_dry_run_keeps_no_zone(tmp_path, machine_zone):
    home, vault = tmp_path / "home", tmp_path / "vault"
    _session(home, A, "2026-11-20T23:30:00Z", 1)
    machine_zone("Asia/Tokyo")
    run_export(ExportOptions(vault=vault, home=home, dry_run=True))
    assert not (vault / ZONE_FILE).exists()


def test_aiders_times_are_read_in_the_vaults_zone(tmp_path, machine_zone):
    """Aider writes local time without a zone: a nightly run whose TZ is not the shell's
    read it hours off, and rewrote the note of every run the log's growth touched."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    repo = home / "src" / "greeter"
    log = AiderLog().run("2026-11-20 23:30:00").prompt("add a greeting").reply("done")
    log.write(repo)
    machine_zone("Europe/Berlin")
    run_export(ExportOptions(vault=vault, home=home, paths={"aider": [home / "src"]}))
    first = _created(vault)
    assert list(first.values()) == ["2026-11-20T23:30:00"]
    log.run("2026-11-21 10:00:00").prompt("now a farewell").reply("done")
    log.write(repo)
    machine_zone("UTC")
    run_export(ExportOptions(vault=vault, home=home, paths={"aider": [home / "src"]}))
    assert sorted(_created(vault).values()) == ["2026-11-20T23:30:00", "2026-11-21T10:00:00"]


def test_a_date_given_to_since_is_midnight_in_the_vaults_zone(tmp_path, machine_zone):
    """The vault's notes are dated in Tokyo: --since 2026-11-21 keeps a session of 01:00
    on the 21st there (16:00 UTC the day before), though this run's zone is UTC."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    machine_zone("Asia/Tokyo")
    _session(home, B, "2026-11-19T22:00:00Z", 1)
    run_export(ExportOptions(vault=vault, home=home))
    _session(home, A, "2026-11-20T16:00:00Z", 1)
    machine_zone("UTC")
    since = datetime(2026, 11, 21)  # as options.export_options leaves a date given alone
    report = run_export(ExportOptions(vault=vault, home=home, since=since))
    assert report.total("created") == 1
    assert _created(vault)["aaaaaaaa.md"] == "2026-11-21T01:00:05"


def test_aiders_times_in_a_worker_are_read_in_the_vaults_zone(tmp_path, machine_zone):
    """Enough runs that workers read them ahead: a worker's adapter is given the zone too."""
    home = tmp_path / "home"
    log = AiderLog()
    for n in range(30):
        log.run(f"2026-11-20 {n // 2:02d}:{n % 2 * 30:02d}:00").prompt(f"task {n}").reply("done")
    log.write(home / "src" / "greeter")
    keep_zone(tmp_path / "vault1", "Europe/Berlin")
    keep_zone(tmp_path / "vault2", "Europe/Berlin")
    machine_zone("Asia/Tokyo")  # not the vault's: times must still be read in Berlin's
    vaults = []
    for jobs in (1, 2):
        vault = tmp_path / f"vault{jobs}"
        options = ExportOptions(vault=vault, home=home, paths={"aider": [home / "src"]})
        run_export(replace(options, workers=jobs))
        vaults.append(note_files(vault))
    assert vaults[0] == vaults[1]
    created = sorted(_created(tmp_path / "vault2").values())
    assert len(created) == 30 and created[0] == "2026-11-20T00:00:00"


def test_a_mistyped_tz_is_said(tmp_path, monkeypatch):
    """``TZ=Mars/Olympus``: the C library takes UTC without a word, and the notes were dated
    in UTC silently (review48 L6). A POSIX rule (digits) or a zone's file is no typo; a zone
    the vault keeps, or ``--timezone``, dates the notes whatever TZ says."""
    options = ExportOptions(vault=tmp_path)
    monkeypatch.setenv("TZ", "Mars/Olympus")
    (said,) = with_vault_zone(options, machine_zone_name()).problems
    assert said.path == "TZ" and "'Mars/Olympus' is not the name of a time zone" in said.message
    assert "dated in UTC" in said.message
    given = with_vault_zone(ExportOptions(vault=tmp_path, timezone=UTC), None)
    assert given.problems == []
    keep_zone(tmp_path, "Asia/Tokyo")
    assert with_vault_zone(options, None).problems == []
    from exporter.zones import mistyped_tz

    for fine in ("CET-1CEST", "Europe/Berlin", ":/etc/localtime", "", "localtime"):
        assert mistyped_tz({"TZ": fine}) is None, fine
    assert mistyped_tz({}) is None and mistyped_tz({"TZ": "Europe/Berln"}) == "Europe/Berln"
