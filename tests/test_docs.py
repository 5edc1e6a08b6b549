"""The README documents every command and option, and its first lines are the two set-up
commands; the pages under docs/ hold the rest (commands in full, notes, settings), and every
link between them resolves."""

from __future__ import annotations

import pytest
import typer.main
from conftest import ROOT

from exporter.cli import app

README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = {page.name: page.read_text(encoding="utf-8") for page in (ROOT / "docs").glob("*.md")}
USAGE, NOTES = DOCS["usage.md"], DOCS["notes.md"]
# Everything a user can read: an example or a setting may be shown on any page.
EVERYWHERE = "\n".join([README, *DOCS.values()])


def commands(group, prefix: str = "ccexport"):
    # typer >= 0.29 vendors click, so groups are recognised by shape, not by class.
    for name, command in group.commands.items():
        yield f"{prefix} {name}", command
        if hasattr(command, "commands"):
            yield from commands(command, f"{prefix} {name}")


def test_every_command_and_option_is_documented():
    root = typer.main.get_command(app)
    for path, command in commands(root):
        assert command.help or command.short_help, f"{path} has no help"
        words = path.split()[1:]
        assert " ".join(words) in README, f"{path} is not in the README"
        for param in command.params:
            for opt in param.opts:
                if (
                    opt.startswith("--")
                    and opt not in ("--help",)
                    and not getattr(param, "hidden", False)
                ):
                    assert opt in README, f"{path} {opt} is not in the README"


def test_readme_opens_with_the_two_commands():
    block = README.split("```sh", 1)[1].split("```", 1)[0].strip().splitlines()
    assert block[0].startswith("python3 -m venv .venv && . .venv/bin/activate")
    assert block[1].startswith("pip install . && ccexport --vault demo-vault --home examples/home")
    assert block[2].startswith("pip install -e '.[test]' && pytest")


def test_ci_runs_the_readme_test_command_in_a_fresh_venv():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "python3 -m venv" in ci
    assert "pip install -e '.[test]' && pytest" in ci


def test_every_source_has_its_page_its_variables_and_a_row_in_the_readme():
    from exporter.adapters import ADAPTERS

    pages = ROOT / "docs" / "sources"
    for adapter in ADAPTERS:
        assert isinstance(adapter.env_vars, tuple), adapter.name
        linked = f"[`{adapter.name}`](docs/sources/"
        assert linked in README, f"{adapter.name} has no row in the README's Sources table"
        target = README.split(linked, 1)[1].split(")", 1)[0]
        assert (pages / target).is_file(), f"docs/sources/{target} is missing"
        for variable in adapter.env_vars:
            page = (pages / target).read_text(encoding="utf-8")
            assert variable in page or variable in README, f"{adapter.name}: {variable}"


def section(title: str, text: str = README) -> str:
    """The text (the README's, else a docs page's) from the heading ``## title`` to the next
    second-level heading."""
    return text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_every_property_a_session_note_can_hold_is_in_the_properties_section():
    import yaml

    from exporter.notes import Note
    from exporter.split import Part, link_parts
    from exporter.stats import PROPERTIES

    keys = set(PROPERTIES)
    for note in (ROOT / "tests" / "golden").rglob("*.md"):
        front = yaml.safe_load(note.read_text(encoding="utf-8").split("---\n", 2)[1])
        if "ccexport_index" not in front:  # index notes have a section of their own
            keys |= set(front)
    part = Note("k", "a.md", {}, "body\n")
    link_parts(part, Part(2, previous="a", following="a (part 3)"))
    keys |= set(part.frontmatter)
    text = section("Properties", NOTES)
    missing = sorted(key for key in keys if f"`{key}`" not in text)
    assert not missing, f"properties notes hold that docs/notes.md's Properties omit: {missing}"


def long_options(command) -> set[str]:
    """The options a command takes, as a user types them (not --help or hidden ones)."""
    return {
        opt
        for param in command.params
        if not getattr(param, "hidden", False)
        for opt in (*param.opts, *getattr(param, "secondary_opts", ()))
        if opt.startswith("--") and opt != "--help"
    }


def names(row: str, words: str) -> bool:
    """The table row is about the command ``words`` (``sources``, ``schedule status``)."""
    import re

    return re.search(rf"`(ccexport )?{words}[ `]", row) is not None


@pytest.mark.parametrize("page", ["README.md", "docs/usage.md"])
def test_the_commands_table_names_exactly_the_options_each_command_takes(page):
    """The README's table of a line each, and docs/usage.md's in full."""
    import re

    root = typer.main.get_command(app)
    text = README if page == "README.md" else USAGE
    rows = [line for line in section("Commands", text).splitlines() if line.startswith("| `")]
    flag = re.compile(r"--[a-z][a-z-]*")
    # The export's options (also the bare command's): a row each, and no row for another.
    export = long_options(root) | long_options(root.commands["export"])
    firsts = ("| `--", "| `ccexport --")  # `ccexport --vault DIR` opens the table
    option_rows = {opt for row in rows if row.startswith(firsts) for opt in flag.findall(row)}
    assert export - option_rows == set(), "export options without a row"
    assert option_rows - export - {"--help"} == set(), "rows for options the export does not take"
    # Every other command: its row names each of its options, and none that the commands
    # the row is about do not take.
    for path, command in commands(root):
        words = path.split(" ", 1)[1]
        if words == "export" or hasattr(command, "commands"):
            continue
        row = next(r for r in rows if names(r, words))
        about = [c for p, c in commands(root) if names(row, p.split(" ", 1)[1])]
        takes = set().union(*(long_options(c) for c in about))
        mentioned = set(flag.findall(row))
        own = long_options(command) - {"--debug"}  # every command takes --debug
        assert own - mentioned == set(), f"{path}: options its row leaves out"
        assert mentioned - takes - {"--help"} == set(), (
            f"{path}: its row names options it does not take"
        )


def test_the_jobs_row_gives_the_thresholds_below_which_a_run_uses_one_process():
    from exporter.workers import PARALLEL_FROM, PARALLEL_FROM_BYTES

    lines = section("Commands", USAGE).splitlines()
    row = next(line for line in lines if line.startswith("| `--jobs"))
    assert f"fewer than {PARALLEL_FROM} sessions" in row
    assert f"{PARALLEL_FROM_BYTES // 2**20} MB" in row


def test_every_toml_example_in_the_docs_is_a_config_ccexport_accepts(tmp_path, monkeypatch):
    """Each ```toml block, pasted as it stands: the block that names its two files (user
    config, then the vault's) is cut at those names; the others go into the vault's."""
    from exporter.config import resolve

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / ".config"))
    monkeypatch.delenv("CCEXPORT_VAULT", raising=False)
    user = tmp_path / ".config" / "ccexport" / "config.toml"
    vault = tmp_path / "Notes"
    blocks = [b.split("```", 1)[0] for b in EVERYWHERE.split("```toml\n")[1:]]
    assert len(blocks) >= 5
    for block in blocks:
        user.parent.mkdir(parents=True, exist_ok=True)
        (vault / ".ccexport").mkdir(parents=True, exist_ok=True)
        if "# ~/.config/ccexport/config.toml" in block:
            mine, ours = block.split("# ~/Notes/.ccexport/config.toml")
        else:
            mine, ours = 'vault = "~/Notes"\n', block
        user.write_text(mine, encoding="utf-8")
        (vault / ".ccexport" / "config.toml").write_text(ours, encoding="utf-8")
        settings = resolve({})
        assert settings.vault == vault


def test_the_redact_example_allows_a_string_the_rules_would_otherwise_redact():
    import tomllib

    from exporter.redact import redactor

    secrets = DOCS["secrets.md"]
    block = next(b for b in secrets.split("```toml\n")[1:] if b.startswith("[redact]"))
    allow = tomllib.loads(block.split("```", 1)[0])["redact"]["allow"]
    for text in allow:
        assert redactor().text(text) != text, f"{text!r} is never redacted: a poor example"
        assert redactor(allow=tuple(allow)).text(text) == text


def test_every_variable_the_session_template_sees_is_in_the_docs(monkeypatch):
    from datetime import UTC, datetime
    from pathlib import Path

    import exporter.notes as notes
    from exporter.model import Message, Session, TextPart

    seen: dict = {}
    monkeypatch.setattr(notes, "_body", lambda settings, context: seen.update(context) or "")
    started = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
    message = Message("user", (TextPart("hi"),), timestamp=started)
    session = Session("codex", "s1", (message,), Path("/x"), started_at=started)
    notes.build_note(session, "n.md", notes.NoteSettings(), lambda key: None)
    text = DOCS["templates.md"] + section("Notes to taste", NOTES)
    missing = sorted(name for name in seen if f"`{name}`" not in text)
    assert seen and not missing, f"template variables the docs do not name: {missing}"


def test_every_setting_config_show_prints_is_in_the_docs_as_written_in_the_file():
    import re

    from exporter.config import SHOWN_KEYS, WRITTEN_AS

    for shown in SHOWN_KEYS:
        table, key = WRITTEN_AS[shown].split(".") if shown in WRITTEN_AS else (None, shown)
        if table:
            assert f"[{table}]" in EVERYWHERE, f"the docs never show the [{table}] table"
        pattern = rf"(^|[`\s]){re.escape(key)} = |\[{re.escape(key)}[\].]"
        assert re.search(pattern, EVERYWHERE, re.MULTILINE), f"no example of {key!r} ({shown})"


def test_the_note_excerpt_is_the_golden_note_it_names():
    name = NOTES.split("An excerpt of `tests/golden/demo-vault/…/", 1)[1].split("`", 1)[0]
    (golden,) = (ROOT / "tests" / "golden" / "demo-vault").rglob(name)
    note = golden.read_text(encoding="utf-8")
    excerpt = NOTES.split("````markdown\n", 1)[1].split("\n````\n", 1)[0] + "\n"
    head, tail = excerpt.split("…\n")
    assert note.startswith(head), "the excerpt's head is not the golden note's"
    assert note.rstrip("\n").endswith(tail.rstrip("\n")), "nor its end"


def test_the_sources_table_names_every_variable_each_source_reads():
    from exporter.adapters import ADAPTERS

    for adapter in ADAPTERS:
        row = next(r for r in README.splitlines() if r.startswith(f"| [`{adapter.name}`]"))
        also = row.split("|")[3]
        missing = [v for v in adapter.env_vars if f"`{v}`" not in also]
        assert not missing, f"{adapter.name}: 'also read' leaves out {missing}"


def test_the_verbose_row_names_every_kind_of_line_verbose_prints():
    from exporter.report import _WRITTEN

    row = next(r for r in section("Commands", USAGE).splitlines() if r.startswith("| `--verbose`"))
    words = {"conflict": "in conflict"}  # how the row says it
    missing = [a.value for a in _WRITTEN if words.get(a.value, a.value) not in row]
    assert not missing, f"--verbose prints lines the README does not mention: {missing}"


def anchors(text: str) -> set[str]:
    """The anchors GitHub gives a page's headings: lowercased, punctuation dropped, spaces
    made hyphens (code blocks skipped: a ``# comment`` in one is no heading)."""
    import re

    found, fenced = set(), False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (heading := re.match(r"#{1,6} (.+)", line)):
            words = re.sub(r"[^\w\- ]", "", heading[1].strip().lower())
            found.add(words.replace(" ", "-"))
    return found


def relative_links(text: str) -> list[str]:
    """The targets of a page's Markdown links that are not web addresses (code skipped)."""
    import re

    prose = re.sub(r"(?ms)^(`{3,}).*?^\1", "", text)
    prose = re.sub(r"`[^`\n]*`", "", prose)
    links = re.findall(r"\]\(([^)\s]+)\)", prose)
    return [link for link in links if not re.match(r"[a-z]+:", link)]


@pytest.mark.parametrize(
    "page", ["README.md", *sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))]
)
def test_every_relative_link_leads_to_a_file_and_its_heading(page):
    source = ROOT / page
    links = relative_links(source.read_text(encoding="utf-8"))
    assert page != "README.md" or len(links) >= 20, "the README links each docs page"
    for link in links:
        path, _, anchor = link.partition("#")
        target = (source.parent / path).resolve() if path else source
        assert target.exists(), f"{page}: {link} leads to no file"
        if anchor:
            assert anchor in anchors(target.read_text(encoding="utf-8")), f"{page}: {link}"


def test_the_readme_links_every_docs_page():
    for page in DOCS:
        assert f"](docs/{page})" in README, f"docs/{page} is not in the README's More"
