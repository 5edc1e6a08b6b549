"""How an Aider run was started, where its banner does not open with the command line (the
review after review12 F6): a ``--verbose`` run logs its arguments (``Command Line Args:``)
and a dump of every setting it read, keys among them, before it echoes its command line;
a run that loaded ``.env`` files says so first; and the browser version (``aider
--browser``) logs its Streamlit script, ``…/aider/gui.py``, as the program. Each is the
note's ``command``, as typed; the settings dump is in no note."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

import yaml
from aider_builder import AiderLog
from conftest import note_files
from test_aider_adapter import utc_clock  # noqa: F401 (Aider writes local time: tests pin the zone)

from exporter.export import ExportOptions, run_export

# (synthetic, an OpenAI project key's shape)
KEY = "sk-proj-" + "Zq4Lm8Rt2Vx6Nb1Kc9Hs" * 3 + "T3BlbkFJ" + "Wd3Gf7Jp5Ty0Ue2Io8Aa"
# The last four characters Aider shows of each key in its dump (synthetic).
SHOWN = ("...k7Qz", "...W4xe")


def settings_dump(args: str) -> list[str]:
    """What ``aider --verbose`` logs before its command line, as it writes it: the arguments
    (Aider marks only that first line with ``>``), then configargparse's report of the
    environment, config file and defaults it read, and every option's value, the
    message's last line ending in Aider's two spaces."""
    return [
        f"> Command Line Args:   {args}",
        "",
        "Environment Variables:",
        f"  OPENAI_API_KEY:    {SHOWN[0]}",
        f"  ANTHROPIC_API_KEY: {SHOWN[1]}",
        "Config File (/home/me/src/shop/.aider.conf.yml):",
        "  auto-commits:      false",
        "",
        "Defaults:",
        "  --env-file:        /home/me/src/shop/.env",
        "  --encoding:        utf-8",
        "",
        "Option settings:",
        f"  - anthropic_api_key: {SHOWN[1]}",
        "  - dry_run: False",
        f"  - openai_api_key: {SHOWN[0]}",
        "  - verbose: True  ",
    ]


def verbose_run(log: AiderLog, args: str, *, echo: bool = True, dump: list[str] | None = None):
    """A ``--verbose`` run: the ``.env`` it loaded, its version check, the dump, the command
    line it echoes after it (``echo``), then the banner."""
    log.header("2025-03-01 09:15:00")
    log.lines += ["> Loaded /home/me/.env  ", "> Too soon to check version: 2.5 hours  "]
    log.lines += settings_dump(args) if dump is None else dump
    if echo:
        log.lines.append(f"> /home/me/.venv/bin/aider {args}  ")
    log.aider(
        "No model settings files loaded",
        "Aider v0.50.1",
        "Model: gpt-4o-mini with diff edit format",
        "Git repo: .git with 12 files",
    )
    return log


def export(tmp_path: Path, log: AiderLog) -> tuple[dict, str]:
    """The run's note: its properties, and its text."""
    home = tmp_path / "home"
    log.write(home / "src" / "shop")
    vault = tmp_path / "vault"
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC, sources=["aider"]))
    assert not report.failed, report.problems
    (text,) = [b.decode() for p, b in note_files(vault).items() if "/aider/" in p]
    return yaml.safe_load(text.split("---\n")[1]), text


def talk(log: AiderLog) -> AiderLog:
    log.prompt("how do i install pandas")
    log.reply("Run `pip install pandas`.")
    return log.tokens("1,686", "91", "0.00031", "0.00031")


def test_a_verbose_runs_command_is_aider_and_its_arguments_and_its_dump_is_no_notes(tmp_path):
    args = "--mini --edit-format diff --verbose --msg how do i install pandas"
    props, text = export(tmp_path, talk(verbose_run(AiderLog(), args)))
    assert props["command"] == f"aider {args}"
    for said in ("Command Line Args", "Environment Variables", "Option settings", "Defaults:",
                 "auto-commits", "anthropic_api_key", *SHOWN, "/home/me/.venv/bin/aider"):  # fmt: skip
        assert said not in text, said
    # what Aider printed as it started, but for its settings, stays: its own output
    assert "Loaded /home/me/.env" in text and "No model settings files loaded" in text
    assert props["models"] == ["gpt-4o-mini"] and props["prompts"] == 1


def test_a_verbose_runs_arguments_alone_name_its_command(tmp_path):
    """The arguments are enough: a dump with no command line echoed after it."""
    props, text = export(tmp_path, talk(verbose_run(AiderLog(), "--verbose", echo=False)))
    assert props["command"] == "aider --verbose"
    assert SHOWN[0] not in text and "Option settings" not in text


def test_a_key_in_a_verbose_runs_arguments_is_redacted(tmp_path):
    props, text = export(tmp_path, talk(verbose_run(AiderLog(), f"--openai-api-key {KEY} -v")))
    assert props["command"].startswith("aider --openai-api-key [REDACTED")
    assert props["command"].endswith(" -v")
    assert KEY not in text


def test_a_dump_without_arguments_is_no_notes_and_the_command_line_after_it_is_the_command(
    tmp_path,
):
    """Verbose from the environment or a config file: configargparse reports no command line
    arguments, and the dump opens with the environment."""
    dump = ["> Environment Variables:", *settings_dump("")[3:]]
    props, text = export(tmp_path, talk(verbose_run(AiderLog(), "", dump=dump)))
    assert props["command"] == "aider"
    assert not any(s in text for s in ("Environment Variables", "Option settings", *SHOWN))


def test_a_verbose_dump_in_a_commands_output_is_no_notes(tmp_path):
    """An Aider started with --verbose from inside a run (``/run aider --verbose``) prints
    its dump as the output of that command: settings and keys all the same."""
    log = AiderLog().run("2025-03-01 09:15:00")
    log.prompt("/run aider --verbose --exit")
    log.lines += settings_dump("--verbose --exit")
    log.aider("Add the output to the chat? (y/n/instructions): n")
    talk(log)
    props, text = export(tmp_path, log)
    assert props["command"] == "aider --model sonnet"
    assert not any(s in text for s in ("Environment Variables", "Option settings", *SHOWN))
    assert "/run aider --verbose --exit" in text


def test_a_command_line_after_the_env_files_aider_loaded_is_the_command(tmp_path):
    log = AiderLog().header("2025-03-01 09:15:00")
    log.aider("Loaded /home/me/.env", "Loaded /home/me/src/shop/.env",
              "/home/me/.venv/bin/aider --model gpt-4o-mini --msg hi --no-git",
              "Aider v0.49.1", "Model: gpt-4o-mini with diff edit format")  # fmt: skip
    props, text = export(tmp_path, talk(log))
    assert props["command"] == "aider --model gpt-4o-mini --msg hi --no-git"
    assert "Loaded /home/me/src/shop/.env" in text and "--no-git" not in text.split("---")[2]


def test_a_command_line_after_other_output_is_not_the_command(tmp_path):
    """What only the version check and the ``.env`` files print comes before the command
    line; after anything else a line naming aider is that output's (a listing)."""
    log = AiderLog().header("2025-03-01 09:15:00")
    log.aider("Files in the chat:", "aider --show-repo", "Aider v0.49.1")
    props, text = export(tmp_path, talk(log))
    assert "command" not in props and "aider --show-repo" in text


def test_the_browser_versions_script_is_aider_as_started(tmp_path):
    """``aider --browser`` runs ``aider/gui.py`` under Streamlit with the arguments given, and
    that script is the program Aider logs: the command is the ``aider`` that started it."""
    log = AiderLog().run("2025-03-01 09:15:00",
                         command="/home/me/.venv/lib/python3.12/site-packages/aider/gui.py --browser")  # fmt: skip
    props, text = export(tmp_path, talk(log))
    assert props["command"] == "aider --browser"
    assert "gui.py" not in text


def test_the_browser_versions_script_on_windows(tmp_path):
    script = r"C:\Users\me\venv\Lib\site-packages\aider\gui.py --gui --model sonnet"
    props, text = export(tmp_path, talk(AiderLog().run("2025-03-01 09:15:00", command=script)))
    assert props["command"] == "aider --gui --model sonnet"
    assert "gui.py" not in text


def test_a_run_started_as_a_python_module(tmp_path):
    """``python -m aider`` logs the module's file, ``…/aider/__main__.py``, as the program:
    the run's command line, not a line of output, and the command is ``python -m aider``."""
    for script in ("/home/me/.venv/lib/python3.12/site-packages/aider/__main__.py",
                   r"C:\Users\me\venv\Lib\site-packages\aider\__main__.py"):  # fmt: skip
        log = AiderLog().run("2025-03-01 09:15:00", command=f"{script} --model sonnet")
        props, text = export(tmp_path / str(len(script)), talk(log))
        assert props["command"] == "python -m aider --model sonnet"
        assert "__main__" not in text
