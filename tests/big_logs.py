"""Very large synthetic session logs, one kind per streamed source, written turn by turn
until a size is reached. Each turn is a prompt, a tool call whose output is a 40 KB line,
and a reply. Run it as a script, so that the writer's own memory stays out of the process
being measured:

    python tests/big_logs.py claude-code|codex|copilot-cli|gemini HOME MEGABYTES

It prints the path of the log it wrote under HOME.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

from claude_builder import ClaudeSession, tool_use
from codex_builder import CodexRollout
from copilot_cli_builder import CopilotCliSession, request
from gemini_builder import GeminiChat, project_folder

CHUNK = ("lorem ipsum dolor sit amet " * 40 + "\n") * 37  # a tool output of about 40 KB


def _grow(path: Path, megabytes: int, turn: Callable[[int], str]) -> Path:
    """Append turns to ``path`` until it holds ``megabytes``."""
    with open(path, "a") as f:
        i = 0
        while f.tell() < megabytes * 1024 * 1024:
            f.write(turn(i))
            i += 1
    return path


def claude_code(home: Path, megabytes: int) -> Path:
    s = ClaudeSession("0000aaaa-0000-4000-8000-000000000000", "/home/dev/work/big")
    path = home / ".claude" / "projects" / "-big" / "big.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)

    def turn(i: int) -> str:
        s.lines.clear()
        s.user(f"question {i}")
        s.assistant([tool_use("Read", {"file_path": f"/src/f{i}.py"}, f"call-{i}")])
        s.tool_result(f"call-{i}", CHUNK)
        s.assistant(f"answer {i} " + CHUNK[:2000])
        return s.text()

    return _grow(path, megabytes, turn)


def codex(home: Path, megabytes: int) -> Path:
    r = CodexRollout("019a0000-0000-7000-8000-0000000000bb")
    r.turn()
    path = r.write(home / ".codex")

    def turn(i: int) -> str:
        r.lines.clear()
        r.user(f"question {i}")
        r.shell(["cat", f"f{i}.py"], CHUNK)
        r.assistant(f"answer {i} " + CHUNK[:2000])
        return r.text()

    return _grow(path, megabytes, turn)


def copilot_cli(home: Path, megabytes: int) -> Path:
    s = CopilotCliSession("5c5c5c5c-0000-4000-8000-0000000000bb")
    path = s.write(home / ".copilot")

    def turn(i: int) -> str:
        s.events.clear()
        s.user(f"question {i}")
        s.assistant("", [request(f"c{i}", "view", {"path": f"f{i}.py"})])
        s.tool(f"c{i}", "view", {"path": f"f{i}.py"}, CHUNK)
        s.assistant(f"answer {i} " + CHUNK[:2000])
        return s.lines()

    return _grow(path, megabytes, turn)


def gemini(home: Path, megabytes: int) -> Path:
    chat = GeminiChat("5e5e5e5e-0000-4000-8000-0000000000bb")
    path = chat.write_jsonl(project_folder(home, "/w/api", "api") / "chats")

    def turn(i: int) -> str:
        chat.messages.clear()
        chat.user(f"question {i}", id=f"q{i}")
        chat.gemini(f"answer {i} " + CHUNK)["id"] = f"a{i}"
        return "".join(json.dumps(m) + "\n" for m in chat.messages)

    return _grow(path, megabytes, turn)


WRITERS = {"claude-code": claude_code, "codex": codex, "copilot-cli": copilot_cli,
           "gemini": gemini}  # fmt: skip


if __name__ == "__main__":
    kind, home, megabytes = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    print(WRITERS[kind](home, megabytes))
