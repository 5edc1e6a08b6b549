"""No plugin command from a session runs.

Templater runs a dynamic command, ``<%+ … %>`` (``<%*+ … %>``: JavaScript), wherever a shown
note holds one, in code blocks too: each gets a zero-width space after its ``<``, and other
``<%`` (ERB, EJS, JSP code) stays exactly as typed; ``doctor`` warns where Templater is set
to run every command of a new note. Meta Bind makes a code element holding just
``INPUT[…]``, ``VIEW[…]`` or ``BUTTON[…]`` a live field or button: it gets a zero-width space
before it."""

from __future__ import annotations

import json
import re
from pathlib import Path

from claude_builder import ClaudeSession, tool_use
from obsidian_check import constructs, visible
from typer.testing import CliRunner

from exporter.cli import app

runner = CliRunner()
DYNAMIC = re.compile(r"(<%(?:-|_)?\s*[*~]{0,1})\+((?:.|\s)*?%>)")  # Templater's own
ATTACK = "<%*+ app.vault.adapter.remove('x') %>"
ERB = "<%= link_to @user.name, user_path(@user) %>"


def _export(tmp_path: Path) -> tuple[Path, str]:
    home, vault = tmp_path / "h", tmp_path / "v"
    s = ClaudeSession("7e3a1c00-0000-4000-8000-000000000001", "/home/dev/shop")
    s.user(f"Why does {ATTACK} show up in `<%+ tp.file.title %>`? My view has {ERB}")
    call = tool_use("Read", {"file_path": "app/views/show.html.erb"}, "toolu_01")
    # (a reply keeps its Markdown escapes, which the shown text drops: <\%+ shows as <%+)
    reply = f"It is a Templater command: {ATTACK}, as are <\\%+ x %> and <%\\+ y %>"
    s.assistant([{"type": "text", "text": reply}, call])
    s.tool_result(call["id"], f"<h1>{ERB}</h1>\n<%+ tp.system.prompt('x') %>\n")
    s.write(home / ".claude" / "projects" / "-home-dev-shop" / f"{s.session_id}.jsonl")
    result = runner.invoke(app, ["--vault", str(vault), "--home", str(home)])
    assert result.exit_code == 0, result.output
    (note,) = (vault / "AI Sessions").rglob("*show up*.md")
    return vault, note.read_text()


def test_no_dynamic_command_of_a_session_is_left_in_its_note_and_erb_is_untouched(tmp_path):
    vault, text = _export(tmp_path)
    for note in vault.rglob("*.md"):  # its properties and the index's link to it too
        assert DYNAMIC.findall(note.read_text()) == [], note
    assert not [c for c in constructs(text) if c.kind == "templater command"]
    shown = visible(text)  # (the zero-width spaces left out, as a reader sees it)
    for typed in (ATTACK, "<%+ tp.file.title %>", "<%+ tp.system.prompt('x') %>"):
        assert typed in shown
    assert text.count(ERB) == 2  # the prompt's and the output's, byte for byte


def test_no_meta_bind_field_or_button_of_a_session_is_live(tmp_path):
    home, vault = tmp_path / "h", tmp_path / "v"
    s = ClaudeSession("7e3a1c00-0000-4000-8000-000000000002", "/home/dev/notes")
    s.user("Bind it with `INPUT[toggle:done]` and show ` VIEW[{title}] `, please")
    call = tool_use("Bash", {"command": "cat fields.md"}, "toolu_02")
    s.assistant([{"type": "text", "text": "Here:\n\n```\nBUTTON[publish]\n```"}, call])
    s.tool_result(call["id"], "INPUT[text:title]\n")
    s.write(home / ".claude" / "projects" / "-home-dev-notes" / f"{s.session_id}.jsonl")
    assert runner.invoke(app, ["--vault", str(vault), "--home", str(home)]).exit_code == 0
    (note,) = (vault / "AI Sessions").rglob("*Bind it*.md")
    text = note.read_text().split("\n---\n", 1)[1]  # (properties are not shown as Markdown)
    assert not [c for c in constructs(text) if c.kind == "meta bind field"]
    shown = visible(text)
    for typed in ("INPUT[toggle:done]", "VIEW[{title}]", "BUTTON[publish]", "INPUT[text:title]"):
        assert typed in shown


def test_doctor_warns_where_templater_runs_the_commands_of_every_new_note(tmp_path):
    vault, _text = _export(tmp_path)
    settings = vault / ".obsidian" / "plugins" / "templater-obsidian" / "data.json"
    settings.parent.mkdir(parents=True)

    def templater_checks() -> list[dict]:
        result = runner.invoke(app, ["doctor", "--vault", str(vault), "--json"])
        checks = json.loads(result.stdout)["checks"]
        return [c for c in checks if "Templater" in c["message"]]

    settings.write_text(json.dumps({"trigger_on_file_creation": False}))
    assert templater_checks() == []
    settings.write_text(json.dumps({"templates_folder": "T", "trigger_on_file_creation": True}))
    (check,) = templater_checks()
    assert check["status"] == "attention" and "Turn it off" in check["message"]
    settings.write_text("{not json")
    assert templater_checks() == []


def test_doctor_never_waits_on_a_fifo_where_templaters_settings_belong(tmp_path):
    import os
    import threading

    from exporter.doctor import TEMPLATER_SETTINGS, _templater_runs_new_notes

    fifo = tmp_path / TEMPLATER_SETTINGS
    fifo.parent.mkdir(parents=True)
    os.mkfifo(fifo)
    found: list[object] = []
    worker = threading.Thread(
        target=lambda: found.append(_templater_runs_new_notes(tmp_path)), daemon=True
    )
    worker.start()
    worker.join(10)
    if worker.is_alive():  # (opened: let it go, then fail)
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    assert found == [None]
