"""Start-up stays small: heavy modules are imported when they are used, not when the command
starts (the issue's budget is 0.3 s for ``ccexport --help`` and an export of nothing)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from exporter.notes import SOURCE_LABELS


def _imported_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", f"import sys\n{code}\nprint(' '.join(sys.modules))"],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    return set(out.split())


def test_the_command_and_the_export_pipeline_start_without_jinja_or_mistune():
    loaded = _imported_after("import exporter.cli, exporter.export, exporter.notes")
    assert "exporter.export" in loaded
    assert not {"jinja2", "mistune"} & loaded


def test_jinja_is_imported_once_templates_are_needed():
    loaded = _imported_after("from exporter.render import environment\nenvironment(None)")
    assert "jinja2" in loaded


# What the two commands of the budget must not load. pydantic (typer's validator per option),
# ruamel.yaml (the first Sessions.base) and every adapter's parser were loaded before the
# budget was set; jinja2, mistune and zstandard already waited and must go on waiting.
HEAVY_FOR_ANY_COMMAND = {
    "pydantic",  # typer's option validators (typer >= 0.29)
    "ruamel.yaml",  # Sessions.base is first written without it
    "jinja2",  # templates: only when a note or an index note is rendered
    "mistune",  # code spans: only when a note is built
    "zstandard",  # compressed Codex rollouts: only when one is read
    # rich (with markdown-it and pygments: 0.1 s) formatted typer's help; help is plain
    # now, and rich draws the progress bar only, on a terminal.
    "rich",
    "markdown_it",
    "pygments",
}
PARSERS = {
    "exporter.adapters.aider_blocks",
    "exporter.adapters.aider_log",
    "exporter.adapters.aider_text",
    "exporter.adapters.claude_content",
    "exporter.adapters.claude_lines",
    "exporter.adapters.claude_load",
    "exporter.adapters.claude_mainfile",
    "exporter.adapters.claude_subagents",
    "exporter.adapters.claude_transcript",
    "exporter.adapters.codex_events",
    "exporter.adapters.codex_odd",
    "exporter.adapters.codex_rollout",
    "exporter.adapters.codex_scan",
    "exporter.adapters.copilot_log",
    "exporter.adapters.copilot_replay",
    "exporter.adapters.copilot_cli.events",
    "exporter.adapters.cline.approvals",
    "exporter.adapters.cline.blocks",
    "exporter.adapters.cline.results",
    "exporter.adapters.cline.ui",
    "exporter.adapters.cursor.agent",
    "exporter.adapters.cursor.bubbles",
    "exporter.adapters.cursor.transcripts",
    "exporter.adapters.cursor.wrappers",
    "exporter.adapters.gemini.chat",
    "exporter.adapters.gemini.chatfiles",
    "exporter.adapters.gemini.damage",
    "exporter.adapters.gemini.stores",
    "exporter.adapters.opencode.convert",
}
# The process pool (30-40 ms to import): only when notes are rendered on every core.
POOL = {"concurrent.futures.process", "multiprocessing"}
# The note builder and the Markdown under it (about a seventh of an empty export's start,
# and of a nightly run's with nothing new): only when a note or an index note is built.
NOTE_BUILDER = {
    *("exporter.notes", "exporter.turns", "exporter.stats", "exporter.clean"),
    *("exporter.split", "exporter.packed", "exporter.session_body", "exporter.index_body"),
    *("exporter.markdown", "exporter.markdown_text", "exporter.markdown_html"),
    *("exporter.markdown_code", "exporter.markdown_scan", "exporter.frontmatter_yaml"),
}
RUN_MAIN = """
import sys
from exporter.cli import main
sys.argv = ["ccexport", *sys.argv[1:]]
try:
    main()
except SystemExit as stop:
    assert not stop.code, stop.code
print(" ".join(sorted(sys.modules)), file=sys.stderr)
"""


def _imported_by_command(*args: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", RUN_MAIN, *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return set(done.stderr.split())


def test_help_imports_no_adapter_and_nothing_heavy():
    loaded = _imported_by_command("--help")
    assert "exporter.cli" in loaded
    never = HEAVY_FOR_ANY_COMMAND | PARSERS | {"exporter.adapters", "exporter.export", "re2"}
    assert not never & loaded, sorted(never & loaded)


def test_an_export_of_an_empty_home_imports_no_parser_and_nothing_heavy(tmp_path):
    home = tmp_path / "emptyhome"
    home.mkdir()
    vault = tmp_path / "v"
    vault.mkdir()  # (a vault that is not there is not made by a run that finds nothing)
    loaded = _imported_by_command("--vault", str(vault), "--home", str(home), "--quiet")
    assert (vault / "AI Sessions" / "Sessions.base").is_file()  # the export did run
    assert "exporter.export" in loaded and "exporter.adapters.codex" in loaded
    # Sessions.base is written directly; the lock names the host and the price table is
    # read without the modules that would cost start-up more (socket, importlib.resources).
    never = HEAVY_FOR_ANY_COMMAND | PARSERS | POOL | NOTE_BUILDER
    never |= {"yaml", "socket", "importlib.resources"}
    # The subcommands wait until one is named or listed (typer reads their signatures).
    never |= {"exporter.cli_groups"}
    assert not never & loaded, sorted(never & loaded)


def test_a_no_op_run_reads_and_writes_no_yaml(tmp_path):
    """The nightly re-run with nothing new: stat calls and the state file; PyYAML (13 ms to
    import), python-frontmatter and the note builder wait for a note to be written or read."""
    from conftest import EXAMPLES_HOME

    args = ("--vault", str(tmp_path / "v"), "--home", str(EXAMPLES_HOME), "--quiet")
    first = _imported_by_command(*args, "--jobs", "1")
    assert {"yaml", "exporter.notes", "exporter.markdown"} <= first  # notes were written
    loaded = _imported_by_command(*args)
    assert "exporter.export" in loaded
    never = {"yaml", "frontmatter", *NOTE_BUILDER}
    assert not never & loaded, sorted(never & loaded)


def test_config_show_checks_source_names_without_importing_the_adapters(tmp_path):
    loaded = _imported_by_command("config", "show", "--vault", str(tmp_path / "v"))
    assert "exporter.config" in loaded and "exporter.adapters" not in loaded


def test_each_parser_is_imported_once_its_source_has_a_session(tmp_path):
    """The parsers are still there when needed: the demo home has sessions of each source."""
    from conftest import EXAMPLES_HOME

    loaded = _imported_by_command(
        "--vault", str(tmp_path / "v"), "--home", str(EXAMPLES_HOME), "--quiet", "--jobs", "1"
    )
    assert not PARSERS - loaded, sorted(PARSERS - loaded)
    assert not POOL & loaded  # --jobs 1 renders in this process


def _typer_parameters():
    """Every option of every command, as typer builds it."""
    import typer.main

    from exporter.cli import app

    def walk(command):
        yield command
        for sub in getattr(command, "commands", {}).values():
            yield from walk(sub)

    return [param for command in walk(typer.main.get_command(app)) for param in command.params]


@pytest.mark.parametrize(
    "value",
    [
        *("", "a", "~/notes", "/tmp", "-", "-x", " spaced ", "ünï", "bad\udcffbyte", "7d", "1e3"),
        *("0", "1", "2", "16", "007", "+3", "-1", " 4", "5 ", "1_000", "3.0", "999999999"),
        "12345678901234567890",
    ],
)
def test_a_value_taken_without_typers_validator_is_the_one_it_would_give(value):
    coercion = pytest.importorskip("typer._coercion", reason="typer < 0.29 has no validators")
    from exporter.cli_options import _deferred_validation

    taken = 0
    for param in _typer_parameters():
        if not hasattr(param, "type_descriptor"):
            continue  # click's own --help
        typer_own = coercion.build_runtime_param(param.type_descriptor)
        param._runtime_param = None
        ours = _deferred_validation([param])[0]._runtime_param
        assert ours.coerce(None, param=param, ctx=None) == typer_own.coerce(
            None, param=param, ctx=None
        )  # left out
        given = (value, value) if param.multiple else value
        try:
            expected = typer_own.coerce(given, param=param, ctx=None)
        except Exception as exc:  # noqa: BLE001 - ours must fail the same way
            with pytest.raises(type(exc)):
                ours.coerce(given, param=param, ctx=None)
            continue
        got = ours.coerce(given, param=param, ctx=None)
        assert (type(got), got) == (type(expected), expected), param.name
        taken += 1
    assert taken >= 10  # the texts, paths and lists of texts of the commands


def test_a_number_option_given_plainly_does_not_load_typers_validators(tmp_path):
    """``--jobs 2`` is read without pydantic (importing it cost 0.2 s of every such run)."""
    loaded = _imported_by_command(
        "--vault", str(tmp_path / "v"), "--home", str(tmp_path), "--jobs", "2",
        "--tool-output", "head", "--tool-output-lines", "30", "--quiet",
    )  # fmt: skip
    assert "pydantic" not in loaded


def test_a_number_given_is_still_checked():
    from typer.testing import CliRunner

    from exporter.cli import app

    bad = CliRunner().invoke(app, ["--vault", "v", "--jobs", "x"])
    assert bad.exit_code == 2
    assert "--jobs must be a number of processes from 1 to 64, not 'x'" in bad.output


@pytest.mark.parametrize("sources", [[], *([s] for s in SOURCE_LABELS), sorted(SOURCE_LABELS)])
def test_the_first_sessions_base_is_the_text_ruamel_writes(sources):
    from exporter import bases

    doc = bases.base_document(sources)
    assert bases._first_text(doc) == bases._dump(bases._yaml(), doc)


def test_a_sessions_base_naming_an_unknown_assistant_is_written_by_ruamel(tmp_path):
    from exporter import bases
    from exporter.vault import Vault

    class Listed(Vault):
        def notes(self, describe):
            return {"s:1": ("a.md", {"source": "yes"})}

    change = bases.write_bases_file(Listed(tmp_path), bases.NoteSettings())
    text = (tmp_path / change.relpath).read_text(encoding="utf-8")
    assert "    name: yes\n" in text  # YAML 1.2 as ruamel writes it; PyYAML would quote it


def test_the_redaction_rules_are_compiled_when_a_text_is_first_redacted():
    # An export that finds nothing builds the redactor for its fingerprint alone: the 107
    # patterns and the keyword automaton wait until a text is redacted.
    from exporter.redact import RULES, Redactor

    rules = Redactor(RULES)  # a new one: redactor() is shared by the process
    assert rules.fingerprint and "_regexes" not in vars(rules)
    assert "automaton" not in vars(rules.keywords)
    key = "ghp_" + "a1B2c3D4e5" * 3 + "f6G7h8"
    assert key not in rules.text(f"token {key}") and "_regexes" in vars(rules)


def test_the_lock_names_the_host_as_the_socket_module_would():
    import socket

    from exporter.state import _host

    assert _host() == socket.gethostname()
