"""Configuration files and their precedence; templates users override; added properties."""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path

import pytest
import yaml
from conftest import EXAMPLES_HOME, ROOT, note_files
from typer.testing import CliRunner

from exporter.cli import app

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


def write_config(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def frontmatter(note: bytes) -> dict:
    return yaml.safe_load(note.decode().split("---\n")[1])


def shown(result) -> dict[str, tuple[object, str]]:
    """``config show``'s rows: each value as TOML reads what it prints ("-": not set)."""
    rows = {}
    for line in result.output.split("\n\n")[0].splitlines():  # (the files named follow)
        key, rest = line.split(None, 1)
        value, origin = rest.rsplit(" from ", 1)
        value = value.strip()
        rows[key] = (value if value == "-" else tomllib.loads(f"v = {value}")["v"], origin.strip())
    return rows


def test_precedence_flags_then_vault_then_user(isolated_home, tmp_path):
    vault = tmp_path / "v"
    write_config(isolated_home / ".config" / "ccexport" / "config.toml",
                 f'vault = "{vault}"\nfolder = "From user"\ntimezone = "Europe/Berlin"\nlayout = "{{year}}/{{source}}"\n')  # fmt: skip
    write_config(vault / ".ccexport" / "config.toml", 'folder = "From vault"\n')
    rows = shown(run("config", "show"))
    assert rows["vault"] == (
        str(vault),
        f"user config ({isolated_home / '.config' / 'ccexport' / 'config.toml'})",
    )
    assert rows["folder"] == ("From vault", f"vault config ({vault / '.ccexport' / 'config.toml'})")
    assert rows["timezone"][0] == "Europe/Berlin" and rows["timezone"][1].startswith("user config")
    assert rows["attachments"] == ("attachments/ccexport", "default")
    rows = shown(run("config", "show", "--vault", str(tmp_path / "other")))
    assert (
        rows["vault"] == (str(tmp_path / "other"), "--vault") and rows["folder"][0] == "From user"
    )
    # the export follows the same settings; a flag wins over both files
    result = run("--home", str(EXAMPLES_HOME), "--timezone", "UTC")
    assert result.exit_code == 0, result.output
    assert any(p.startswith("From vault/2026/claude-code/") for p in note_files(vault))


def test_config_show_lists_the_redaction_rules_and_allowed_strings(tmp_path):
    """`[redact] extra` and `allow` are settings too; `config show` left them out."""
    vault = tmp_path / "v"
    config = write_config(vault / ".ccexport" / "config.toml", """
[redact]
extra = [{ id = "acme-key", pattern = "acme_[0-9a-f]{32}" }]
allow = ["sk-test-not-a-real-key"]
""")  # fmt: skip
    rows = shown(run("config", "show", "--vault", str(vault)))
    rule = {"id": "acme-key", "pattern": "acme_[0-9a-f]{32}"}
    assert rows["redact.extra"] == ([rule], f"vault config ({config})")
    assert rows["redact.allow"] == (["sk-test-not-a-real-key"], f"vault config ({config})")


def test_ccexport_vault_variable(monkeypatch, tmp_path):
    monkeypatch.setenv("CCEXPORT_VAULT", str(tmp_path / "env-vault"))
    assert shown(run("config", "show"))["vault"] == (str(tmp_path / "env-vault"), "CCEXPORT_VAULT")
    assert run("--home", str(EXAMPLES_HOME)).exit_code == 0
    assert note_files(tmp_path / "env-vault")


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ('colour = "blue"\n', "'colour' is not a setting ccexport knows"),
        ('timezone = "Mars/Olympus"\n', "'timezone' is not a known time zone"),
        ('since = "last tuesday"\n', "'since' is not a date"),
        ('sources = ["claude-code", "nonesuch"]\n', "'sources' names 'nonesuch', not a source"),
        ('layout = "{source}/{weekday}"\n', "'layout' uses unknown fields ['weekday']"),
        ("[frontmatter]\ndrop = ['session_id']\n", "cannot drop 'source' or 'session_id'"),
        ("[frontmatter]\nadd = { source = '{{ source_label }}' }\n", "cannot set 'source'"),
        (
            "[frontmatter]\nadd = { part = 2, session_id = 'x' }\n",
            "cannot set 'part', 'session_id'",
        ),
        ("folder = [\n", "not valid TOML"),
        ('vault = "/elsewhere"\n', "'vault' cannot be set inside the vault's own config"),
    ],
)
def test_bad_configuration_is_a_clear_error_with_exit_2(tmp_path, config, message):
    path = write_config(tmp_path / "v" / ".ccexport" / "config.toml", config)
    result = run("--vault", str(tmp_path / "v"), "--home", str(EXAMPLES_HOME))
    assert result.exit_code == 2
    assert str(path) in result.stderr and message in result.stderr
    assert not note_files(tmp_path / "v")


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ('folder = "x"\n\n# mine\ncolour = "blue"\n', "line 4: 'colour' is not a setting"),
        ('folder = "x"\n[index]\nenabled = "yes"\n', "line 3: 'index.enabled' must be"),
        ('folder = "x"\nindex = { enabled = "yes" }\n', "line 2: 'index.enabled' must be"),
        ("[redact]\nallow = []\n[[redact.extra]]\nid = 'a'\npattern = '('\n",
         "line 5: 'redact.extra[0].pattern' is not a valid pattern"),
        ("[[redact.extra]]\nid = 'a'\npattern = 'a+'\n[[redact.extra]]\nid = 'b'\npattern = '('\n",
         "line 6: 'redact.extra[1].pattern' is not a valid pattern"),
        ('folder = "x"\nsince = "last tuesday"\n', "line 2: 'since' is not a date"),
        ('folder = "x"\n\nvault = "/elsewhere"\n', "line 3: 'vault' cannot be set inside"),
    ],
)  # fmt: skip
def test_a_bad_setting_is_named_with_its_file_and_line(tmp_path, config, message):
    path = write_config(tmp_path / "v" / ".ccexport" / "config.toml", config)
    result = run("--vault", str(tmp_path / "v"), "--home", str(EXAMPLES_HOME))
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert str(path) in result.stderr and message in result.stderr, result.stderr


def test_a_config_file_that_is_not_utf8_is_a_configuration_error(isolated_home, tmp_path):
    """Saved as Latin-1 by an editor: exit 2 naming the file and line, not exit 1 with an
    "unexpected error" (it was a UnicodeDecodeError). Saved by Windows Notepad as UTF-8
    with a byte-order mark: read (tomllib refused it at line 1, column 1)."""
    user = isolated_home / ".config" / "ccexport" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_bytes('folder = "x"\n# caf\u00e9\n'.encode("latin-1"))
    for result in (run("config", "show"), run("--vault", str(tmp_path / "v"))):
        assert result.exit_code == 2, result.output
        assert f"{user}, line 2: not valid TOML (not UTF-8 text" in result.stderr
        assert "unexpected" not in result.stderr
    assert not (tmp_path / "v").exists()
    user.write_bytes(b"\xef\xbb\xbf" + 'folder = "Caf\u00e9"\n'.encode())  # Notepad's UTF-8
    assert shown(run("config", "show"))["folder"][0] == "Caf\u00e9"


def test_source_paths_from_the_config(tmp_path):
    backup = tmp_path / "backup-of-claude"
    shutil.copytree(EXAMPLES_HOME / ".claude", backup)
    write_config(tmp_path / "v" / ".ccexport" / "config.toml",
                 f'sources = ["claude-code"]\n[paths]\nclaude-code = ["{backup}"]\n')  # fmt: skip
    (tmp_path / "empty").mkdir()
    result = run("--vault", str(tmp_path / "v"), "--home", str(tmp_path / "empty"))
    assert result.exit_code == 0 and "7 created" in result.output


def test_added_and_dropped_properties(tmp_path):
    vault = tmp_path / "v"
    config = write_config(vault / ".ccexport" / "config.toml", """
[frontmatter]
add = { status = "inbox", week = "{{ created.strftime('%G-W%V') }}", who = "{{ source_label }}" }
drop = ["tokens_cache_read", "tokens_cache_write", "cwd"]
""")  # fmt: skip
    assert (
        run("--vault", str(vault), "--home", str(EXAMPLES_HOME), "--timezone", "UTC").exit_code == 0
    )
    rust = next(
        b for p, b in note_files(vault).items() if "Returning vectors" in p and "agent" not in p
    )
    fm = frontmatter(rust)
    assert (fm["status"], fm["week"], fm["who"]) == ("inbox", "2026-W47", "Claude Code")
    assert "tokens_cache_read" not in fm and "cwd" not in fm and fm["tokens_in"] == 7300
    config.write_text('[frontmatter]\ndrop = ["cwd"]\n')
    assert (
        run("--vault", str(vault), "--home", str(EXAMPLES_HOME), "--timezone", "UTC").exit_code == 0
    )
    rust = next(
        b for p, b in note_files(vault).items() if "Returning vectors" in p and "agent" not in p
    )
    fm = frontmatter(rust)
    # a property no longer configured stays where it was written: it is the person's now
    assert (fm["status"], fm["week"]) == ("inbox", "2026-W47") and fm["tokens_cache_read"] == 300


def test_an_added_property_on_a_time_the_session_lacks_is_left_out_of_that_note_alone(tmp_path):
    """``{{ updated.strftime(...) }}`` where the source records no end (an Aider log, an
    early Codex rollout): that note was not written at all. Now it is, without the
    property, and the run says why; the other notes have it. An expression wrong for every
    note (both times known) still fails, naming the setting."""
    vault = tmp_path / "v"
    config = write_config(vault / ".ccexport" / "config.toml", """
[frontmatter]
add = { week = "{{ created.strftime('%G-W%V') }}", last = "{{ updated.strftime('%Y-%m-%d') }}" }
""")  # fmt: skip
    args = ("--vault", str(vault), "--home", str(EXAMPLES_HOME), "--timezone", "UTC")
    result = run(*args, "--verbose")
    assert result.exit_code == 0, result.output
    notes = {p: frontmatter(b) for p, b in note_files(vault).items() if "/Projects/" not in p}
    endless = [p for p, fm in notes.items() if "session_id" in fm and "updated" not in fm]
    assert endless and any("/aider/" in p for p in endless)
    for path, fm in notes.items():
        if "session_id" not in fm:
            continue
        assert fm["week"] == fm["created"].strftime("%G-W%V"), path
        assert ("last" in fm) == ("updated" in fm), path
    said = result.output + (result.stderr if result.stderr_bytes is not None else "")
    assert "config frontmatter.add.last: expression error" in said
    for path in endless:  # each note named (--verbose: every one; review15 F4)
        assert f"left out of {path} (its session's end is not known)" in said
    config.write_text('[frontmatter]\nadd = { oops = "{{ created.nope() }}" }\n')
    broken = run(*args, "--force")
    assert broken.exit_code != 0
    assert "config frontmatter.add.oops: expression error" in broken.output + broken.stderr


def grow_rust_session(home: Path) -> None:
    """The demo's Rust session gains a prompt, "and slices?" (its last line is its title)."""
    source = next(home.rglob("a3359d8f-*.jsonl"))
    asked = json.loads(source.read_text().splitlines()[-2])  # the last message
    asked.update(parentUuid=asked["uuid"], uuid="9" + asked["uuid"][1:],
                 timestamp="2026-11-20T09:20:00.000Z",
                 message={"role": "user", "content": "and slices?"})  # fmt: skip
    with source.open("a") as f:
        f.write(json.dumps(asked) + "\n")


def test_an_added_property_is_the_persons_once_written(tmp_path):
    """``status = "inbox"`` is set on a note that lacks it; the person's ``done`` (with its
    comment) then survives the session growing, a changed value and the setting's removal;
    a note that never had it gets it on the next re-render."""
    vault, home = tmp_path / "v", tmp_path / "sessions"
    shutil.copytree(EXAMPLES_HOME, home)
    args = ("--vault", str(vault), "--home", str(home), "--timezone", "UTC")
    assert run(*args).exit_code == 0  # exported before the setting: no status anywhere
    config = write_config(vault / ".ccexport" / "config.toml", """
[frontmatter]
add = { status = "inbox", project = "{{ project | upper }}" }
""")  # fmt: skip
    assert run(*args).exit_code == 0
    rust = next(vault.rglob("*Returning vectors*a3359d8f.md"))
    fm = yaml.safe_load(rust.read_text().split("---\n")[1])
    assert (fm["status"], fm["project"]) == ("inbox", "RUST-PARSER")  # ours is replaced
    rust.write_text(rust.read_text().replace("status: inbox", "status: done  # reviewed"))
    grow_rust_session(home)  # the note is updated
    for text in ('add = { status = "todo" }', "drop = []"):
        config.write_text(f"[frontmatter]\n{text}\n")
        assert run(*args).exit_code == 0
        assert "status: done  # reviewed\n" in rust.read_text()
    assert "project: rust-parser" in rust.read_text()  # ours again, once not configured


def test_an_added_property_the_person_deletes_stays_deleted(tmp_path):
    """An inbox workflow: ``status`` added once, the person removes it (and ``week``) from a
    note they processed; the session grows and the note is updated. It came back on every
    write ("set on a note that lacks it"); a note given it once is not given it again. A
    property newly configured still reaches the notes that never had it."""
    vault, home = tmp_path / "v", tmp_path / "sessions"
    shutil.copytree(EXAMPLES_HOME, home)
    args = ("--vault", str(vault), "--home", str(home), "--timezone", "UTC")
    config = write_config(vault / ".ccexport" / "config.toml", """
[frontmatter]
add = { status = "inbox", week = "{{ created.strftime('%G-W%V') }}" }
""")  # fmt: skip
    assert run(*args).exit_code == 0
    rust = next(vault.rglob("*Returning vectors*a3359d8f.md"))
    text = rust.read_text()
    assert "status: inbox\n" in text and "week: 2026-W47\n" in text
    rust.write_text(text.replace("status: inbox\n", "").replace("week: 2026-W47\n", ""))
    grow_rust_session(home)  # the note is updated
    result = run(*args)
    assert result.exit_code == 0 and "1 updated" in result.output
    fm = frontmatter(rust.read_bytes())
    assert "status" not in fm and "week" not in fm and "and slices?" in rust.read_text()
    config.write_text('[frontmatter]\nadd = { status = "inbox", owner = "me" }\n')
    assert run(*args).exit_code == 0  # a new setting: every note is rendered again
    fm = frontmatter(rust.read_bytes())
    assert fm["owner"] == "me" and "status" not in fm
    other = next(vault.rglob("*Notes app storage design*.md"))
    assert frontmatter(other.read_bytes())["status"] == "inbox"  # never deleted there


def test_a_property_deleted_under_an_older_version_stays_deleted(tmp_path):
    """A state an older version wrote (before 7 December, or rewritten since by one on
    another machine) has no record of the properties each note was given: that version gave
    every note each configured one it lacked, so one a note lacks now the person deleted.
    The upgrade renders every note again and gave them all back (review24 F1, F2)."""
    vault, home = tmp_path / "v", tmp_path / "sessions"
    shutil.copytree(EXAMPLES_HOME, home)
    args = ("--vault", str(vault), "--home", str(home), "--timezone", "UTC")
    write_config(vault / ".ccexport" / "config.toml", '[frontmatter]\nadd = { status = "inbox" }\n')
    assert run(*args).exit_code == 0
    state = vault / ".ccexport" / "state.json"
    data = json.loads(state.read_text())
    del data["notes"]["given"]  # as an older version writes it
    state.write_text(json.dumps(data))
    rust = next(vault.rglob("*Returning vectors*a3359d8f.md"))
    rust.write_text(rust.read_text().replace("status: inbox\n", ""))
    # A run that writes the note not (another source): what is not known stays so.
    assert run(*args, "--source", "codex", "--force").exit_code == 0
    grow_rust_session(home)
    assert run(*args, "--force").exit_code == 0  # every note written again, as an upgrade
    assert "and slices?" in rust.read_text() and "status" not in frontmatter(rust.read_bytes())
    other = next(vault.rglob("*Notes app storage design*.md"))
    assert frontmatter(other.read_bytes())["status"] == "inbox"
    # (A record that says none was given, as this version writes it: given.)
    data = json.loads(state.read_text())
    data["tables"]["lists"].append([])
    data["notes"]["given"] = [len(data["tables"]["lists"]) - 1] * len(data["notes"]["key"])
    state.write_text(json.dumps(data))
    assert run(*args, "--force").exit_code == 0
    assert frontmatter(rust.read_bytes())["status"] == "inbox"


def test_templates_init_copies_the_defaults_once(tmp_path):
    vault = tmp_path / "v"
    first = run("templates", "init", "--vault", str(vault))
    target = vault / ".ccexport" / "templates"
    assert (
        first.exit_code == 0
        and (target / "session.md.j2").read_bytes()
        == (ROOT / "templates" / "session.md.j2").read_bytes()
    )
    (target / "session.md.j2").write_text("mine")
    again = run("templates", "init", "--vault", str(vault))
    assert "kept" in again.output and (target / "session.md.j2").read_text() == "mine"
    assert "the next export uses them" in first.output
    elsewhere = run("templates", "init", "--to", str(tmp_path / "elsewhere"))
    assert elsewhere.exit_code == 0  # a folder of one's own is used only where it is named
    assert f"uses them with --templates {tmp_path / 'elsewhere'}" in elsewhere.output
    assert "the next export uses them" not in elsewhere.output
    assert sorted(p.name for p in (tmp_path / "elsewhere").iterdir()) == sorted(
        p.name for p in (ROOT / "templates").glob("*.j2")
    )


def test_templates_init_says_when_the_config_names_other_templates(tmp_path):
    """`templates init` copies into the vault's .ccexport/templates, but a `templates`
    setting wins over that folder: it said "the next export uses them" all the same."""
    vault, mine = tmp_path / "v", tmp_path / "my-templates"
    mine.mkdir()
    write_config(vault / ".ccexport" / "config.toml", f'templates = "{mine}"\n')
    result = run("templates", "init", "--vault", str(vault))
    assert result.exit_code == 0 and (vault / ".ccexport" / "templates" / "session.md.j2").exists()
    assert f"the export uses {mine}" in result.stdout and "next export uses them" not in (
        result.stdout
    )
    (vault / ".ccexport" / "config.toml").write_text('templates = ".ccexport/templates"\n')
    again = run("templates", "init", "--force", "--vault", str(vault))  # (copied: not kept)
    assert "the next export uses them" in again.stdout


def test_templates_init_into_a_file_is_a_usage_error(tmp_path):
    target = tmp_path / "notes.md"
    target.write_text("mine")
    result = run("templates", "init", "--to", str(target))
    assert result.exit_code == 2 and "is a file, not a folder" in result.stderr
    assert target.read_text() == "mine"


def test_a_user_template_changes_every_note_on_the_next_run_and_nothing_else(tmp_path):
    vault = tmp_path / "v"
    args = ("--vault", str(vault), "--home", str(EXAMPLES_HOME), "--timezone", "UTC")
    assert run(*args).exit_code == 0
    before = note_files(vault, index=True)
    sessions = note_files(vault)
    mine = next(iter(sessions))
    (vault / mine).write_text((vault / mine).read_text() + "My own line.\n")
    assert run("templates", "init", "--vault", str(vault)).exit_code == 0
    template = vault / ".ccexport" / "templates" / "session.md.j2"
    template.write_text(template.read_text() + "\nExported with my template.\n")
    result = run(*args)
    assert result.exit_code == 0 and f"{len(sessions)} updated" in result.output
    after = note_files(vault, index=True)
    assert sorted(after) == sorted(before)  # no note added, moved or renamed
    for path, data in after.items():
        text = data.decode()
        if path in sessions:
            assert "Exported with my template." in text
            assert frontmatter(data) == frontmatter(before[path])
        else:
            assert data == before[path]  # index notes use other templates
    assert (vault / mine).read_text().endswith("My own line.\n")
    assert "0 created, 0 updated" in run(*args).output  # and it is stable


def test_a_broken_template_is_one_line_and_the_other_notes_are_written(tmp_path):
    vault = tmp_path / "v"
    folder = tmp_path / "my-templates"
    folder.mkdir()
    (folder / "session.md.j2").write_text(
        '{% extends "default/session.md.j2" %}\n{% block header %}\n'
        "{% if session.source == 'codex' %}{{ no_such_variable }}{% endif %}\n# {{ title | inline }}\n{% endblock %}\n"
    )
    result = run("--vault", str(vault), "--home", str(EXAMPLES_HOME), "--templates", str(folder))
    assert result.exit_code == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert errors == [
        f"error: {folder / 'session.md.j2'}:3: template error: 'no_such_variable' is undefined (4 times)"
    ]
    notes = note_files(vault)
    assert len(notes) == 37 and not any("/codex/" in p for p in notes)
    (folder / "session.md.j2").write_text("{% if %}")
    syntax = run("--vault", str(vault), "--home", str(EXAMPLES_HOME), "--templates", str(folder))
    assert syntax.exit_code == 1
    assert f"{folder / 'session.md.j2'}:1: template syntax error:" in syntax.stderr


def test_a_template_edited_between_runs_in_one_process_is_read_again(tmp_path):
    """``watch`` runs the export again and again in one process: each run reads the
    templates as they are then (within a run, they are read once)."""
    vault, folder = tmp_path / "v", tmp_path / "my-templates"
    folder.mkdir()
    template = folder / "session.md.j2"
    args = ("--vault", str(vault), "--home", str(EXAMPLES_HOME), "--templates", str(folder))
    for mark in ("First version.", "Second version."):
        template.write_text(
            '{% extends "default/session.md.j2" %}\n{% block header %}{{ super() }}'
            + mark
            + "\n{% endblock %}\n"
        )
        assert run(*args).exit_code == 0
        texts = [data.decode() for data in note_files(vault).values()]
        assert texts and all(mark in text for text in texts)


def test_an_edited_file_the_template_includes_renders_the_notes_again(tmp_path):
    """Every file of the folder counts, not only the top-level ``*.j2`` ones."""
    vault, folder = tmp_path / "v", tmp_path / "my-templates"
    (folder / "parts").mkdir(parents=True)
    (folder / "session.md.j2").write_text(
        '{% extends "default/session.md.j2" %}\n'
        '{% block header %}{% include "parts/head.md" %}{% endblock %}\n'
    )
    args = ("--vault", str(vault), "--home", str(EXAMPLES_HOME), "--templates", str(folder))
    for mark in ("First version.", "Second version."):
        (folder / "parts" / "head.md").write_text(mark + "\n")
        assert run(*args).exit_code == 0
        texts = [data.decode() for data in note_files(vault).values()]
        assert texts and all(mark in text for text in texts)


def test_since_takes_minutes_and_months_by_name_and_refuses_a_bare_m():
    from datetime import UTC, datetime, timedelta

    from exporter.config_values import parse_since
    from exporter.errors import ConfigError

    now = datetime.now(UTC)
    assert abs(now - timedelta(minutes=30) - parse_since("30min")) < timedelta(seconds=5)
    assert abs(now - timedelta(days=90) - parse_since("3mo")) < timedelta(seconds=5)
    assert abs(now - timedelta(days=7) - parse_since("7d")) < timedelta(seconds=5)
    # "30m" was 30 months, where most would read 30 minutes: now said to be ambiguous.
    with pytest.raises(ConfigError, match="ambiguous.*30min for minutes, 30mo for months"):
        parse_since("30m")


def test_a_since_or_interval_past_what_a_clock_holds_is_refused_as_bad_usage(tmp_path):
    """`--since 1000000d` (or in config.toml) and `watch --interval inf` stopped the run
    with "unexpected error: OverflowError" (exit 1): they are bad values (exit 2)."""
    vault = tmp_path / "v"
    for args in (("--since", "1000000d"), ("--since", "9" * 30 + "w")):
        result = run("--vault", str(vault), "--home", str(tmp_path), *args)
        assert result.exit_code == 2 and "--since is too far back" in result.output, args
    write_config(vault / ".ccexport" / "config.toml", 'since = "1000000d"\n')
    result = run("--vault", str(vault), "--home", str(tmp_path))
    assert result.exit_code == 2 and "line 1: 'since' is too far back" in result.output
    for interval in ("inf", "1e30", "nan"):
        result = run(
            "watch", "--vault", str(vault), "--home", str(tmp_path), "--interval", interval
        )
        assert result.exit_code == 2 and "--interval" in result.output, interval
    assert not list(vault.glob("AI Sessions"))


@pytest.mark.parametrize("key", ["folder", "attachments"])
@pytest.mark.parametrize(
    "value",
    # (/Users: refused on every machine, whether it has such a folder or not)
    ["/tmp/elsewhere", "/Users/me/AI", "//server/share", "~/Notes/AI", "C:\\\\Notes", "../out"],
)
def test_a_notes_or_attachments_folder_outside_the_vault_is_refused(tmp_path, key, value):
    """`folder = "/tmp/x"` was taken as `<vault>/tmp/x` without a word (and `../x` refused):
    a full path is refused too, naming the key and the line. A trailing slash is kept out."""
    vault = tmp_path / "v"
    write_config(vault / ".ccexport" / "config.toml", f'# mine\n{key} = "{value}"\n')
    result = run("--vault", str(vault), "--home", str(tmp_path))
    assert result.exit_code == 2, result.output
    assert f"line 2: '{key}' must be a folder inside the vault" in result.output
    assert not (vault / "AI Sessions").exists() and not (vault / "tmp").exists()
    for kept in ("Mine/AI/", "/Mine/AI"):  # a leading / that names no folder: the vault's
        write_config(vault / ".ccexport" / "config.toml", f'{key} = "{kept}"\n')
        assert shown(run("config", "show", "--vault", str(vault)))[key][0] == "Mine/AI"


def test_a_relative_vault_in_the_user_config_is_refused(isolated_home, tmp_path, monkeypatch):
    """``vault = "Notes"`` was taken from the current folder, so the nightly run (started in
    another folder by cron or systemd) wrote a second vault somewhere else. A full path or
    one starting with ``~`` is taken; a relative one is a clear error naming the line."""
    user = write_config(isolated_home / ".config" / "ccexport" / "config.toml",
                        '# mine\nvault = "Notes"\n')  # fmt: skip
    monkeypatch.chdir(tmp_path)
    result = run("--home", str(EXAMPLES_HOME))
    assert result.exit_code == 2, result.output
    assert f"({user}), line 2: 'vault' must be a full path or start with ~" in result.stderr
    assert not (tmp_path / "Notes").exists()
    write_config(user, 'vault = "~/Notes"\n')
    assert shown(run("config", "show"))["vault"][0] == str(isolated_home / "Notes")


def test_a_since_date_with_no_local_time_is_a_clear_error(monkeypatch):
    """--since 0001-01-01 east of UTC has no local time: it raised ValueError out of
    astimezone, an "unexpected error"; now the usual "is not a date"."""
    import time

    from exporter.config_values import parse_since
    from exporter.errors import ConfigError

    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        with pytest.raises(ConfigError, match="--since is not a date: '0001-01-01'"):
            parse_since("0001-01-01")
        assert parse_since("2026-11-01").year == 2026
    finally:
        monkeypatch.undo()
        time.tzset()


@pytest.mark.parametrize(("zone", "kept"), [("Asia/Tokyo", True), ("UTC", False)])
def test_a_since_date_is_midnight_in_the_zone_the_notes_are_dated_in(
    tmp_path, monkeypatch, zone, kept
):
    """A session from 05:00 to 06:00 on 1 November in Tokyo (20:00-21:00 UTC on 31 October)
    has its note filed under 2026-11-01 with --timezone Asia/Tokyo. --since 2026-11-01 read
    the date in the machine's zone (UTC here) and left it out; it is midnight in Tokyo now."""
    import json
    import time

    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    try:
        folder = tmp_path / "home" / ".claude" / "projects" / "-w-proj"
        folder.mkdir(parents=True)
        sid = "5e0c1a77-0000-4000-8000-000000000001"
        base = {"sessionId": sid, "cwd": "/w/proj", "version": "2.0.0"}
        lines = [
            {**base, "type": "user", "uuid": "u1", "parentUuid": None,
             "timestamp": "2026-10-31T20:00:00.000Z",
             "message": {"role": "user", "content": "hello"}},
            {**base, "type": "assistant", "uuid": "a1", "parentUuid": "u1",
             "timestamp": "2026-10-31T21:00:00.000Z",
             "message": {"role": "assistant", "model": "claude-sonnet-4-5", "id": "m1",
                         "content": [{"type": "text", "text": "hi"}]}},
        ]  # fmt: skip
        (folder / f"{sid}.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
        vault = tmp_path / "vault"
        result = run("--vault", str(vault), "--home", str(tmp_path / "home"),
                     "--since", "2026-11-01", "--timezone", zone, "--quiet")  # fmt: skip
        assert result.exit_code == 0, result.output
        names = [Path(p).name for p in note_files(vault)]
        assert any(n.startswith("2026-11-01 ") for n in names) is kept, names
    finally:
        monkeypatch.undo()
        time.tzset()


# A value each table setting takes, as config.toml writes it.
TABLE_VALUES = {
    "frontmatter.add": '{ team = "x" }',
    "frontmatter.drop": '["cost"]',
    "frontmatter.project_tag": '"ai/project"',
    "index.enabled": "true",
    "index.dataview": "true",
    "redact.extra": "[]",
    "redact.allow": '["not-a-secret"]',
    "daily.folder": '"Daily"',
    "daily.format": '"YYYY-MM-DD"',
}


def test_every_name_config_show_prints_is_one_the_config_file_takes(tmp_path):
    """`config show` printed index_dataview, frontmatter_add…, and the file refused those
    names (pointing to `config show`): it prints each as the file spells it."""
    vault = tmp_path / "v"
    names = shown(run("config", "show", "--vault", str(vault)))
    assert {n for n in names if "." in n} == set(TABLE_VALUES)
    for name, value in TABLE_VALUES.items():
        table, key = name.split(".")
        config = write_config(vault / ".ccexport" / "config.toml", f"[{table}]\n{key} = {value}\n")
        result = run("config", "show", "--vault", str(vault))
        assert result.exit_code == 0, result.output
        assert shown(result)[name][1] == f"vault config ({config})"


def test_a_table_setting_written_as_a_plain_key_is_refused_saying_how_to_write_it(tmp_path):
    vault = tmp_path / "v"
    write_config(vault / ".ccexport" / "config.toml", "index_dataview = true\n")
    result = run("config", "show", "--vault", str(vault))
    assert result.exit_code == 2
    assert (
        "index_dataview" in result.output
        and "goes in the [index] table, as `dataview = …`" in result.output
    )


def test_an_unknown_setting_names_the_settings_the_file_takes(tmp_path):
    """``config show`` reads the same file and stops at the same key: the message itself
    says what the key may have meant and lists every setting, as the file spells them."""
    write_config(tmp_path / "v" / ".ccexport" / "config.toml", 'folderr = "x"\n')
    result = run("--vault", str(tmp_path / "v"), "--home", str(EXAMPLES_HOME))
    assert result.exit_code == 2
    assert "'folderr' is not a setting ccexport knows (did you mean folder?)" in result.stderr
    assert "the settings: vault, folder, layout," in result.stderr
    assert "frontmatter" in result.stderr and "frontmatter_add" not in result.stderr
    assert "config show" not in result.stderr
