"""An image Codex generated (``image_generation_call``) is the output of its call: shown in
the call's callout, as an image a tool returned is, each after its own prompt, in order.
It used to follow the callout as an attachment of its own, as if the model had sent it."""

from __future__ import annotations

import base64
import re
from datetime import UTC
from pathlib import Path

import pytest
from claude_builder import tiny_png
from codex_builder import CodexRollout
from conftest import load_sessions, note_files

from exporter.adapters import codex
from exporter.adapters.codex import CodexAdapter
from exporter.export import ExportOptions, run_export

TID = "019a0000-1111-7222-8333-444455557777"
CAT, DOG = tiny_png((200, 10, 10)), tiny_png((10, 200, 10))


def _generated(call_id: str, prompt: str, png: bytes | None) -> dict:
    item = {"type": "image_generation_call", "id": call_id, "status": "completed",
            "revised_prompt": prompt}  # fmt: skip
    if png is not None:
        item["result"] = base64.b64encode(png).decode()
    return item


def _rollout(home: Path) -> None:
    r = CodexRollout(TID)
    r.user("draw a cat, then a dog")
    r.reasoning("Two images.")
    r.item(_generated("ig_1", "a cat", CAT))
    r.item(_generated("ig_2", "a dog", DOG))
    r.item(_generated("ig_3", "a bird", None))  # (failed, or trimmed: no image)
    r.assistant("Here they are.")
    r.write(home / ".codex")


@pytest.mark.parametrize("streamed", [False, True])
def test_a_generated_image_is_its_calls_result(tmp_path, monkeypatch, streamed):
    if streamed:
        monkeypatch.setattr(codex, "STREAM_FROM", 0)
    _rollout(tmp_path)
    (session,), _ = load_sessions(CodexAdapter(), tmp_path)
    shapes = [(m.role, [(p.kind, getattr(p, "call_id", None)) for p in m.parts])
              for m in session.messages if m.role != "user"]  # fmt: skip
    assert shapes == [
        ("assistant", [("thinking", None)]),
        ("assistant", [("tool_call", "ig_1")]),
        ("tool", [("tool_result", "ig_1"), ("attachment", None)]),
        ("assistant", [("tool_call", "ig_2")]),
        ("tool", [("tool_result", "ig_2"), ("attachment", None)]),
        ("assistant", [("tool_call", "ig_3")]),  # (no image: nothing answers it)
        ("assistant", [("text", None)]),
    ]
    images = [p.data for m in session.messages for p in m.parts if p.kind == "attachment"]
    assert images == [CAT, DOG]


def test_the_note_shows_each_generated_image_in_its_calls_callout(tmp_path):
    _rollout(tmp_path)
    vault = tmp_path / "vault"
    run_export(ExportOptions(vault=vault, home=tmp_path, timezone=UTC))
    (note,) = note_files(vault).values()
    text = note.decode()
    embeds = re.findall(r"^(> )?!\[\[([^\]]+\.png)\]\]$", text, re.M)
    assert [quoted for quoted, _ in embeds] == ["> ", "> "], text  # (inside the callouts)
    cat_at, dog_at = (text.index(f"prompt: a {name}") for name in ("cat", "dog"))
    first, second = (text.index(path) for _, path in embeds)
    assert cat_at < first < dog_at < second < text.index("prompt: a bird")
    stored = {p.name: p.read_bytes() for p in vault.rglob("*.png")}
    assert [stored[Path(path).name] for _, path in embeds] == [CAT, DOG]


def _saved_rollout(home: Path, *, event_first: bool) -> None:
    r = CodexRollout(TID)
    r.user("draw a cat")
    saved = f"/home/dev/.codex/generated_images/{TID}/ig_1.png"
    event = {"type": "image_generation_end", "call_id": "ig_1", "status": "completed",
             "revised_prompt": "a cat", "result": "", "saved_path": saved}  # fmt: skip
    if event_first:  # (as Codex writes them: the event, then the item)
        r.event(event)
    r.item(_generated("ig_1", "a cat", CAT))
    if not event_first:
        r.event(event)
    r.item(_generated("ig_2", "a dog", None))  # (no image: saved nowhere, nothing answers it)
    r.event({"type": "image_generation_end", "call_id": "ig_3", "saved_path": "/x/ig_3.png"})
    r.item(_generated("ig_3", "a bird", None))  # (the file saved, the item holds no image)
    r.assistant("Here it is.")
    r.write(home / ".codex")


@pytest.mark.parametrize("streamed", [False, True])
@pytest.mark.parametrize("event_first", [True, False])
def test_where_codex_saved_a_generated_image_is_its_calls_output(
    tmp_path, monkeypatch, streamed, event_first
):
    """``image_generation_end`` names the file Codex saved the image to (``saved_path``,
    ``$CODEX_HOME/generated_images/<thread>/<call>.png``): it was not read."""
    if streamed:
        monkeypatch.setattr(codex, "STREAM_FROM", 0)
    _saved_rollout(tmp_path, event_first=event_first)
    (session,), _ = load_sessions(CodexAdapter(), tmp_path)
    results = [(p.call_id, p.output) for m in session.messages for p in m.parts
               if p.kind == "tool_result"]  # fmt: skip
    assert results == [
        ("ig_1", f"Saved to /home/dev/.codex/generated_images/{TID}/ig_1.png"),
        ("ig_3", "Saved to /x/ig_3.png"),
    ]
    images = [p.data for m in session.messages for p in m.parts if p.kind == "attachment"]
    assert images == [CAT]


def test_the_note_shows_the_saved_path_in_the_calls_callout(tmp_path):
    _saved_rollout(tmp_path, event_first=True)
    vault = tmp_path / "vault"
    run_export(ExportOptions(vault=vault, home=tmp_path, timezone=UTC))
    (note,) = (b.decode() for b in note_files(vault).values())
    callout = note.split("> prompt: a cat")[1].split("\n\n", 1)[0]
    assert f"> Saved to /home/dev/.codex/generated_images/{TID}/ig_1.png" in callout
    assert re.search(r"^> !\[\[[^\]]+\.png\]\]$", callout, re.M)
