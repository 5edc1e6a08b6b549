"""Demo data for Gemini CLI and the Antigravity CLI: ``write(home)`` adds them to a demo home.

Invented sessions showing what the readers handle: thoughts, tool calls with results, a
cancelled call, a subagent, a ``/chat save`` checkpoint, a rewound answer, unicode, a Windows project, a
session known only from ``logs.json``, and an Antigravity transcript.
"""

from __future__ import annotations

import json
from pathlib import Path

from gemini_builder import (
    GeminiChat,
    project_folder,
    setup_turns,
    tool_call,
    write_checkpoint,
    write_prompt_log,
)

NOTES_ROOT = "/home/dev/work/notes-app"
WIN_ROOT = "C:\\Users\\dev\\work\\win-app"
SEARCH_ID = "6a1f0c2e-4b3d-4e5f-8a9b-0c1d2e3f4a5b"
AGENT_ID = "investigator-3c9e"
WIN_ID = "2d4e6f80-1a3b-4c5d-9e7f-8a9b0c1d2e3f"
PRUNED_ID = "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a"
AGY_ID = "0c2e4a6b-8d1f-4e3a-9b5c-7d9f1b3d5e7a"


def write(home: Path) -> None:
    _notes_app(home)
    _win_app(home)
    _antigravity(home)


def _notes_app(home: Path) -> None:
    """JSONL chat: thoughts, tools, a subagent, a rewind, a title, a checkpoint, logs.json."""
    folder = project_folder(home, NOTES_ROOT, "notes-app", marker=True)
    chat = GeminiChat(SEARCH_ID, NOTES_ROOT, start="2026-11-21T14:05:00Z")
    prompt = (
        "Könntest du die Suche für „Notizen“ beschleunigen? Sie braucht 2 s bei 10 000 Notizen 🚀"
    )
    chat.user(prompt)
    chat.gemini(
        "Ich schaue mir zuerst den Suchindex an.",
        thoughts=[
            {"subject": "Den Engpass finden", "description": "Erst messen, dann den Index lesen."}
        ],
        calls=[
            tool_call(
                "read_file-1",
                "read_file",
                {"file_path": f"{NOTES_ROOT}/src/search.ts"},
                "export function search(q: string) {\n  return notes.filter(n => n.body.includes(q));\n}\n",
            ),
            tool_call(
                "run_shell_command-1",
                "run_shell_command",
                {"command": "npm run bench -- search", "description": "Benchmark"},
                "search x 10000: 2.1 s\n",
            ),
        ],
    )
    chat.gemini(
        "",
        calls=[
            tool_call(
                "investigate-1",
                "codebase_investigator",
                {"objective": "Where is the note list loaded?"},
                "Subagent finished: notes are loaded once in `store.ts`.",
                agent_id=AGENT_ID,
            )
        ],
    )
    chat.gemini(
        "Die Suche durchsucht jede Notiz linear. Ein Wortindex in `store.ts` macht "
        "daraus einen Nachschlag: **2 s → 4 ms**."
    )
    # A full benchmark run the person cancelled while it ran: no error, shown as cancelled.
    chat.gemini(
        "",
        calls=[
            tool_call(
                "run_shell_command-2",
                "run_shell_command",
                {"command": "npm run bench -- --all", "description": "Benchmark everything"},
                status="cancelled",
            )
        ],
    )
    chat.notice("info", "Request cancelled.")
    first_try = chat.user("Und mit Umlauten? `Straße` soll `strasse` finden.")
    chat.gemini("Dafür reicht toLowerCase().")
    # The person rewound to that prompt and asked again: the log keeps both, then a rewind.
    retry = GeminiChat(SEARCH_ID, NOTES_ROOT, start="2026-11-21T14:09:00Z")
    retry.messages = chat.messages
    retry.user("Und mit Umlauten? `Straße` soll `strasse` finden — bitte mit Test.")
    retry.gemini(
        "Ich normalisiere mit `normalize('NFKD')` und ersetze ß durch ss; der Test deckt es ab.",
        calls=[
            tool_call(
                "replace-1",
                "replace",
                {
                    "file_path": f"{NOTES_ROOT}/src/search.ts",
                    "old_string": "q.toLowerCase()",
                    "new_string": "fold(q)",
                },
                "Successfully modified file.",
            )
        ],
    )
    asked_again = chat.messages[-2:]
    chat.messages = chat.messages[:-2]
    chat.summary = "Schnellere Suche mit Wortindex"
    extra = [{"$rewindTo": first_try["id"]}, *asked_again]
    chat.write_jsonl(folder / "chats", extra_lines=extra)
    child = GeminiChat(AGENT_ID, NOTES_ROOT, start="2026-11-21T14:06:00Z", kind="subagent")
    child.user("Where is the note list loaded?")
    child.gemini(
        "",
        calls=[
            tool_call(
                "grep-1",
                "search_file_content",
                {"pattern": "loadNotes"},
                "src/store.ts:12: export async function loadNotes()",
            )
        ],
    )
    child.gemini("Notes are loaded once in `store.ts` (`loadNotes`).", model="gemini-2.5-flash")
    child.write_jsonl(folder / "chats" / SEARCH_ID, f"{AGENT_ID}.jsonl")
    write_checkpoint(
        folder,
        "suche vorher",
        setup_turns(NOTES_ROOT)
        + [
            {"role": "user", "parts": [{"text": prompt}]},
            {
                "role": "model",
                "parts": [
                    {"text": "Den Engpass finden", "thought": True},
                    {"text": "Ich schaue mir zuerst den Suchindex an."},
                    {"functionCall": {"name": "read_file", "args": {"file_path": "src/search.ts"}}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "name": "read_file",
                            "response": {"output": "export function search(q: string) { … }"},
                        }
                    }
                ],
            },
        ],
    )
    write_prompt_log(
        folder,
        [
            (SEARCH_ID, "2026-11-21T14:05:01Z", prompt),
            (PRUNED_ID, "2026-10-02T08:30:00Z", "Why does the sync lose notes written offline?"),
            (PRUNED_ID, "2026-10-02T08:41:00Z", "/chat save sync"),
            (PRUNED_ID, "2026-10-02T08:42:00Z", "Write that up as an issue, please."),
        ],
    )


def _win_app(home: Path) -> None:
    """A legacy whole-document chat of a Windows project, with a failed tool call."""
    folder = project_folder(home, WIN_ROOT, "win-app")
    chat = GeminiChat(WIN_ID, WIN_ROOT, start="2026-11-22T07:45:00Z")
    chat.user("Der Build bricht unter Windows ab: `LNK1104` — kannst du nachsehen?")
    chat.gemini(
        "",
        calls=[
            tool_call(
                "run_shell_command-1",
                "run_shell_command",
                {"command": "cargo build", "directory": WIN_ROOT},
                error="LINK : fatal error LNK1104: cannot open file 'win-app.exe'",
            ),
            tool_call(
                "read_file-1",
                "read_file",
                {"file_path": WIN_ROOT + "\\Cargo.toml"},
                '[package]\nname = "win-app"\n',
            ),
        ],
        model="gemini-2.5-flash",
    )
    chat.gemini(
        "Die alte `win-app.exe` läuft noch und sperrt die Datei. Beende sie und baue neu.",
        model="gemini-2.5-flash",
    )
    chat.notice("error", "[API Error: Quota exceeded for gemini-2.5-pro; fell back to flash]")
    chat.write_json(folder / "chats")


def _antigravity(home: Path) -> None:
    root = home / ".gemini" / "antigravity-cli"
    logs = root / "brain" / AGY_ID / ".system_generated" / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    steps = [
        (
            "USER_EXPLICIT",
            "USER_INPUT",
            {
                "content": "<USER_REQUEST>\nList the notes that have no tags.\n</USER_REQUEST>\n<USER_SETTINGS_CHANGE>\nThe user changed setting `Model Selection` from None to Gemini 3.5 Flash (Medium).\n</USER_SETTINGS_CHANGE>"
            },
        ),
        ("SYSTEM", "CONVERSATION_HISTORY", {}),
        (
            "MODEL",
            "PLANNER_RESPONSE",
            {
                "thinking": "Grep for notes without a tags line.",
                "tool_calls": [
                    {
                        "name": "grep_search",
                        "args": {
                            "Query": '"^tags:"',
                            "SearchPath": json.dumps(NOTES_ROOT + "/notes"),
                            "toolSummary": '"Finding tagged notes"',
                        },
                    }
                ],
            },
        ),
        ("MODEL", "GREP_SEARCH", {"content": "notes/a.md:2:tags: [work]\n"}),
        ("MODEL", "PLANNER_RESPONSE", {"content": "Only `notes/b.md` has no tags."}),
    ]
    lines = [
        {
            "step_index": i,
            "source": src,
            "type": kind,
            "status": "DONE",
            "created_at": f"2026-11-23T16:20:{i:02d}Z",
            **fields,
        }
        for i, (src, kind, fields) in enumerate(steps)
    ]
    (logs / "transcript.jsonl").write_text(
        "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8"
    )
    cache = root / "cache" / "last_conversations.json"
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps({NOTES_ROOT: AGY_ID}), encoding="utf-8")
