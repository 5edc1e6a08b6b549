"""Demo data for Aider: ``write(home)`` adds a repository log to a demo home.

The log sits in ``<home>/src/weather-cli/.aider.chat.history.md``, where an export with
``--home`` looks when ``[paths] aider`` is not set. It holds three runs: one with an edit,
a commit, a shell command and usage lines (old wording), one with ``/model`` and the newer
usage wording, and one started and left without a prompt (no note); the first run's
prompts are dated by ``.aider.input.history``. The times in both files are local time: the
golden notes are made with ``TZ=UTC``.
"""

from __future__ import annotations

from pathlib import Path

from aider_builder import AiderLog

REPO = Path("src") / "weather-cli"


def write(home: Path) -> None:
    log = AiderLog().run("2025-11-24 09:12:40", model="claude-sonnet-4-5", weak="claude-haiku-4-5")
    log.aider("Added weather/cli.py to the chat.")
    log.prompt("show the temperature in °F when --imperial is given")
    log.reply(
        "I'll add the flag and convert before printing.\n\nweather/cli.py\n```python\n"
        '<<<<<<< SEARCH\n    print(f"{temp:.1f} °C")\n=======\n'
        '    if args.imperial:\n        print(f"{temp * 9 / 5 + 32:.1f} °F")\n    else:\n'
        '        print(f"{temp:.1f} °C")\n>>>>>>> REPLACE\n```'
    )
    log.aider("Applied edit to weather/cli.py", "Commit 3e9a1f2 feat: --imperial prints °F")
    log.tokens("6,120", "412", "0.02", "0.02")
    log.prompt("/run python -m weather --imperial Oslo")
    log.aider("Oslo: 35.6 °F", "Add command output to the chat? (Y)es/(N)o [Yes]: n")
    log.prompt("and a test for it")
    log.reply("Added `test_imperial` next to the existing CLI tests.")
    log.aider("Applied edit to tests/test_cli.py", "Commit 8b0c4d1 test: --imperial")
    log.tokens("7,034", "296", "0.02", "0.04")
    gpt5 = "/home/me/.local/bin/aider --model gpt-5"  # (the banner agrees with its model line)
    log.run("2025-11-25 17:40:02", model="gpt-5", weak=None, command=gpt5)
    log.prompt("why is the cache file never refreshed?")
    log.reply("Let me look at `load_cache()` with a smaller model first.")
    log.prompt("/model gpt-5-mini")
    log.aider("Model: gpt-5-mini with diff edit format")
    log.prompt("go on")
    log.reply("`load_cache()` compares `mtime` with the wrong unit: seconds against milliseconds.")
    log.tokens("3.4k", "220", "0.0031", "0.0031", cache_hit="2.9k")
    log.run("2025-11-26 08:00:00", model="gpt-5", weak=None, command=gpt5)  # started and left
    log.write(home / REPO)
    (home / REPO / ".aider.input.history").write_text(
        "\n# 2025-11-24 09:13:05.120413\n+show the temperature in °F when --imperial is given\n"
        "\n# 2025-11-24 09:15:47.905122\n+/run python -m weather --imperial Oslo\n"
        "\n# 2025-11-24 09:16:20.331870\n+and a test for it\n",
        encoding="utf-8",
    )
