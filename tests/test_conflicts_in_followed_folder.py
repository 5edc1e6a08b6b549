"""`ccexport doctor` counts the copies of the person's edits (``Conflicts`` below the notes'
folder), and searches them for secrets, in the folder the run follows: the one the person
renamed ``AI Sessions`` to in Obsidian. Before, it looked in the configured folder, gone
since the rename, and said nothing of the copies waiting in the renamed one (review29)."""

from __future__ import annotations

import json
import os

from typer.testing import CliRunner
from vault_builder import export, write_session

from exporter.cli import app

# An invented token of a shape the built-in rules know (github-pat), built in two pieces
TOKEN = "ghp_" + "Zq7Xw2Vb9Nm4Lk8Jh3Gf6Ds1Ap5Ou0Iy2Tr7"
COPY = "2026-11-20 093000 Fix the checkout.md"


def renamed_and_followed(tmp_path):
    """A vault whose notes folder the person renamed to ``Chats``, a run since following it."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["first question"])
    export(vault, home)
    os.rename(vault / "AI Sessions", vault / "Chats")
    export(vault, home)  # follows the rename (and records it)
    return home, vault


def test_doctor_counts_and_searches_the_copies_in_the_renamed_folder(tmp_path):
    home, vault = renamed_and_followed(tmp_path)
    (vault / "Chats" / "Conflicts").mkdir()
    (vault / "Chats" / "Conflicts" / COPY).write_text(f"my edit\n{TOKEN}\n")
    result = CliRunner().invoke(
        app, ["doctor", "--vault", str(vault), "--home", str(home), "--json"]
    )
    checks = json.loads(result.stdout)["checks"]
    saved = [c for c in checks if "saved aside" in c["message"]]
    assert len(saved) == 1 and "1 in Chats/Conflicts/" in saved[0]["message"], checks
    found = [c for c in checks if "the current redaction rules find" in c["message"]]
    assert [f["path"] for f in found[0]["files"]] == [f"Chats/Conflicts/{COPY}"]
    assert TOKEN not in result.stdout
