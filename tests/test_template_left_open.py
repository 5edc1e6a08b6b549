"""A person's template that leaves a code block or comment open at the end of its part (a
label before ``prose``: a reply starting with a code block opens one that runs over the end
marker and the person's notes): the export warns, naming the note, and ``doctor`` names the
line that puts a block filter after text."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import EXAMPLES_HOME
from typer.testing import CliRunner

from exporter.cli import app

runner = CliRunner()
CHAT = (
    "# {{ title | inline }}\n"
    "{% for turn in turns %}\n"
    '{% for item in turn["items"] if item.kind == "text" %}\n'
    '**{{ turn.role }}:** {{ item.text | literal if turn.role == "user" else item.text | prose }}\n'
    "\n"
    "{% endfor %}\n"
    "{% endfor %}\n"
)
STORAGE = "2026-11-21 Notes app storage design 5e0c1a77.md"


def _folder(tmp_path: Path, source: str) -> Path:
    folder = tmp_path / "mine"
    folder.mkdir(exist_ok=True)
    (folder / "session.md.j2").write_text(source)
    return folder


def _export(tmp_path: Path, folder: Path):
    args = ["--vault", str(tmp_path / "v"), "--home", str(EXAMPLES_HOME), "--json"]
    return runner.invoke(app, [*args, "--templates", str(folder)])


def test_a_part_left_inside_a_code_block_is_warned_naming_the_note(tmp_path):
    folder = _folder(tmp_path, CHAT)
    result = _export(tmp_path, folder)
    assert result.exit_code == 0, result.output
    said = [
        p for p in json.loads(result.stdout)["warnings"] if "open at the end of" in p["message"]
    ]
    assert len(said) == 2  # the two demo notes whose reply starts with a code block
    (storage,) = [p for p in said if STORAGE in p["message"]]
    assert storage["path"] == str(folder / "session.md.j2")
    assert storage["message"].startswith("leaves a code block (```) open at the end of AI ")
    assert "show as code in Obsidian" in storage["message"]
    assert "start a line of their own" in storage["message"]
    # (the note is written, as rendered)
    (note,) = (tmp_path / "v").rglob(STORAGE)
    assert "**assistant:** ```sql" in note.read_text()


def test_a_template_closing_what_it_opens_is_not_warned(tmp_path):
    folder = _folder(tmp_path, CHAT.replace("**{{ turn.role }}:** ", "**{{ turn.role }}:**\n"))
    result = _export(tmp_path, folder)
    assert result.exit_code == 0, result.output
    assert not [p for p in json.loads(result.stdout)["warnings"] if "open at" in p["message"]]


def test_doctor_names_a_block_filter_after_text_on_its_line(tmp_path):
    import jinja2

    from exporter.doctor_template_lint import block_after_text

    source = (
        "{{ a | prose }}\n"  # alone: fine
        "- {{ a | literal }}\n"
        "> {{ a | fence('text') }}\n"
        "{{ a | inline }} {{ b | callout('note', 'x') }}\n"
        "x: {{ a | literal if b else a | prose }}\n"
        "{{ a | inline }}{{ '\\n' }}{{ b | prose }}\n"  # after a line break printed: fine
        "  {{ a | prose }}\n"
    )
    found = block_after_text(jinja2.Environment().parse(source))
    assert found == [(2, "literal"), (3, "fence"), (4, "callout"), (5, "literal")]


def test_doctor_says_so_of_the_chat_template(tmp_path):
    vault = tmp_path / "v"
    folder = vault / ".ccexport" / "templates"
    folder.mkdir(parents=True)
    (folder / "session.md.j2").write_text(CHAT)
    args = ["doctor", "--vault", str(vault), "--home", str(EXAMPLES_HOME), "--json"]
    checks = json.loads(runner.invoke(app, args).stdout)["checks"]
    said = [c["message"] for c in checks if c["area"] == "Templates" and c["status"] != "ok"]
    assert [m for m in said if "after text on its line" in m] == [
        f"{folder / 'session.md.j2'}:4: prints `literal` after text on its line: what it "
        "writes is a block, and its first line joins that line (a reply starting with a code "
        "block opens one that runs over the end marker and your notes below it); start a line "
        "of its own with it"
    ]
