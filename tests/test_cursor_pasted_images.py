"""Cursor: an image pasted into a prompt is copied by Cursor into its ``User`` folder
(``workspaceStorage/images/<random>-image.png``) and the prompt names that copy by its
path on the machine it was pasted on; the note embeds it from there (audit 2, finding 2:
corpus ``slevin48…state.vscdb`` composer ``484448da``)."""

from __future__ import annotations

import os
from datetime import UTC
from pathlib import Path

import pytest
from claude_builder import tiny_png
from conftest import load_sessions, note_files
from vscode_builder import make_db, workspace

from exporter.adapters.cursor import CursorAdapter, pasted_images
from exporter.export import ExportOptions, run_export

CURSOR = Path(".config") / "Cursor" / "User"
COMPOSER = "c0c0c0c0-1111-4222-8333-444444444444"
WINDOWS_SHOT = (
    "c:\\Users\\dev\\AppData\\Roaming\\Cursor\\User\\workspaceStorage\\images\\"
    "0.7449537880301038-image.png"
)
POSIX_SHOT = "/home/someone/.config/Cursor/User/workspaceStorage/images/0.25-image.png"


def composer_with_images(user: Path, *paths: str) -> None:
    """A global composer whose one prompt names ``paths`` as its ``selectedImages``."""
    headers = [{"bubbleId": "b1", "type": 1}, {"bubbleId": "b2", "type": 2}]
    images = [{"uuid": f"i{n}", "path": p, "dimension": {"width": 4, "height": 4}}
              for n, p in enumerate(paths)]  # fmt: skip
    disk = {
        f"composerData:{COMPOSER}": {"composerId": COMPOSER, "name": "Fix the layout",
                                     "createdAt": 1731799483213, "fullConversationHeadersOnly": headers},
        f"bubbleId:{COMPOSER}:b1": {"type": 1, "bubbleId": "b1", "text": "why is this cut off?",
                                    "context": {"selectedImages": images}},
        f"bubbleId:{COMPOSER}:b2": {"type": 2, "bubbleId": "b2", "text": "The container clips it."},
    }  # fmt: skip
    make_db(user / "globalStorage" / "state.vscdb", {}, disk)


def put_image(user: Path, name: str, data: bytes) -> Path:
    path = user / "workspaceStorage" / "images" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def export(home: Path) -> tuple[str, Path]:
    """The one Cursor note exported from ``home`` and the vault."""
    vault = home / "vault"
    report = run_export(ExportOptions(vault=vault, home=home, sources=["cursor"], timezone=UTC))
    assert not report.failed, report.problems
    (note,) = note_files(vault).values()
    return note.decode(), vault


def attachments(home: Path) -> list[tuple[str | None, bytes | None, str | None]]:
    (session,), problems = load_sessions(CursorAdapter(), home)
    assert problems == []
    return [
        (p.name, p.data, p.withheld)
        for m in session.messages
        for p in m.parts
        if p.kind == "attachment"
    ]


def test_a_screenshot_pasted_on_windows_is_embedded_from_the_user_folder(tmp_path):
    """The prompt names the copy by its Windows path; the User folder read (under --home, on
    Linux) holds it: the note embeds it and the vault holds the same bytes."""
    user = tmp_path / CURSOR
    shot = tiny_png((10, 120, 200))
    put_image(user, "0.7449537880301038-image.png", shot)
    composer_with_images(user, WINDOWS_SHOT)
    note, vault = export(tmp_path)
    embeds = [line for line in note.splitlines() if line.startswith("![[")]
    assert len(embeds) == 1, note
    relpath = embeds[0].removeprefix("![[").removesuffix("]]")
    assert relpath.endswith(".png")
    assert (vault / relpath).read_bytes() == shot
    assert "not stored in the session" not in note


def test_a_screenshot_pasted_on_a_posix_machine_is_read_but_never_where_recorded(tmp_path):
    """A POSIX path of another machine maps onto the User folder read; another Cursor
    images folder that exists as recorded is not read (a copied home is exported, not
    this machine's files): that image is named only."""
    user = tmp_path / CURSOR
    mapped = tiny_png((1, 2, 3))
    put_image(user, "0.25-image.png", mapped)
    elsewhere = put_image(tmp_path / "portable" / "User", "0.5-image.png", tiny_png((4, 5, 6)))
    composer_with_images(user, POSIX_SHOT, str(elsewhere))
    assert attachments(tmp_path) == [
        (POSIX_SHOT, mapped, None),
        (str(elsewhere), None, None),
    ]


def test_a_legacy_tabs_pasted_screenshot_is_read_from_the_user_folder(tmp_path):
    """The legacy AI-chat panel's tab (a workspace database) names its screenshots the same
    way (corpus tab 2aa483d1)."""
    user = tmp_path / CURSOR
    shot = tiny_png((9, 9, 9))
    put_image(user, "0.1-image.png", shot)
    recorded = WINDOWS_SHOT.replace("0.7449537880301038", "0.1")
    tabs = {"tabs": [{"tabId": "tab-1", "chatTitle": "Legacy", "lastSendTime": 1731818231743, "bubbles": [
        {"type": "user", "id": "u1", "text": "look", "selectedImages": [{"path": recorded}]},
        {"type": "ai", "id": "a1", "text": "I see.", "modelType": "gpt-4"}]}]}  # fmt: skip
    workspace(user, "ws", "file:///c%3A/app", {"workbench.panel.aichat.view.aichat.chatdata": tabs})
    assert attachments(tmp_path) == [(recorded, shot, None)]


def test_a_deleted_screenshot_is_named_as_not_stored(tmp_path):
    """The copy the person (or Cursor) deleted: the note names it, as before; no error."""
    user = tmp_path / CURSOR
    put_image(user, "0.9-image.png", tiny_png())  # another image: the folder is there
    composer_with_images(user, WINDOWS_SHOT, POSIX_SHOT.replace("0.25", "0.9"))
    note, _vault = export(tmp_path)
    assert f"*Attached `{WINDOWS_SHOT}`, not stored in the session.*" in note
    assert note.count("![[") == 1


def test_only_cursors_images_folder_is_read(tmp_path):
    """A path that climbs out of the images folder (``..``), a link there to a file elsewhere
    and an image picked from disk are named, not read; Cursor's copy beside them is read."""
    user = tmp_path / CURSOR
    secret = tiny_png((255, 0, 0))
    (user / "secret.png").parent.mkdir(parents=True)
    (user / "secret.png").write_bytes(secret)
    (tmp_path / "picked.png").write_bytes(secret)
    shot = put_image(user, "0.3-image.png", tiny_png())
    climbing = WINDOWS_SHOT.replace("0.7449537880301038-image.png", "..\\..\\secret.png")
    climbing_posix = str(shot.parent / ".." / ".." / "secret.png")
    os.symlink(user / "secret.png", shot.parent / "0.4-image.png")
    linked = POSIX_SHOT.replace("0.25", "0.4")
    picked = str(tmp_path / "picked.png")
    composer_with_images(user, climbing, climbing_posix, linked, picked, str(shot))
    assert attachments(tmp_path) == [
        (climbing, None, None),
        (climbing_posix, None, None),
        (linked, None, None),
        (picked, None, None),
        (str(shot), tiny_png(), None),
    ]


def test_a_file_too_large_for_a_screenshot_is_named_with_the_reason(tmp_path, monkeypatch):
    monkeypatch.setattr(pasted_images, "MAX_IMAGE", 16)
    user = tmp_path / CURSOR
    put_image(user, "0.7449537880301038-image.png", tiny_png())
    composer_with_images(user, WINDOWS_SHOT)
    ((name, data, withheld),) = attachments(tmp_path)
    assert (name, data) == (WINDOWS_SHOT, None)
    assert withheld and withheld.startswith("larger than")


@pytest.mark.parametrize("name", ["..", ".", "", "C:shot.png", "x.png:hidden"])
def test_a_name_that_is_no_file_name_is_not_looked_up(tmp_path, name):
    recorded = f"C:\\x\\workspaceStorage\\images\\{name}"
    assert pasted_images.pasted_image(recorded, tmp_path / CURSOR) == (None, None)
