"""Aider's chat log read (FORMATS.md §6.4): the log cut into runs at its ``# aider chat
started at`` headers, and one run's lines turned into a session: prompts, slash and shell
commands, replies, Aider's own output, and the usage and cost lines summed.

Kept apart from aider.py, which finds the logs, makes one unit per run and dates the
prompts from ``.aider.input.history``, and from aider_runs.py, which cuts a log into runs;
this module reads text it is given, never a folder.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from ..errors import Problem
from ..model import (
    CommandOutputPart,
    CommandPart,
    Message,
    NoticePart,
    Part,
    Role,
    Session,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from .aider import SOURCE
from .aider_blocks import blocks, tag_fences_as_markdown
from .aider_launch import Launch, is_command
from .aider_output import segments
from .aider_requests import asks, conversation, run_title
from .aider_runs import Run
from .aider_usage import USAGE_LINE, RunUsage

# The model a banner names, without Aider's badges after it (``claude-3-haiku⚡``: prompt
# caching on; ``♾️``: infinite output): the id alone.
_MODEL = re.compile(r"^(?:Models?|Main model): ([A-Za-z0-9_./:@+-]+)")
# Commands after which Aider prints its banner again, with the model now in use (Aider
# takes a command's first letters for it: ``/chat`` is ``/chat-mode``).
_SWITCHES = ("/model", "/chat-mode", "/weak-model", "/editor-model")
# Start-up lines Aider prints before the first prompt: facts, not conversation.
_BANNER = (
    "Aider v", "Model:", "Models:", "Main model:", "Weak model:", "Editor model:",
    "Git repo:", "Repo-map:", "Use /help", "Cur working dir:", "Git working dir:",
    "Newer aider version", "Run pip install", "Update git name", "Update git email",
    "VSCode terminal detected", "Warning: ", "https://aider.chat/",
)  # fmt: skip
# What changed the repository: an edit, a commit, a commit /undo took back.
_ACTION = re.compile(r"^(?:Applied edit to |Commit [0-9a-f]{7,40}\b|Removed: [0-9a-f]{7,40}\b)")
# Aider's report of a Ctrl-C: the first stops the reply, a second within two seconds Aider.
_CTRL_C = re.compile(r"^\^C(?: again to exit| KeyboardInterrupt)?\s*$")
# Older Aider's question to add a command's output to the chat, and what was typed after
# it on the same line: yes, no, or instructions (the person's words, a prompt).
_ANSWER = re.compile(r"^([\[(]y/n/instructions[\])]) ?(.*)$", re.I)
_YES_NO = {"", "y", "n", "yes", "no"}
# What Aider logs for an Enter pressed on an empty line: nothing was typed or sent.
_BLANK = "<blank>"
# Commands that send a question to the model in a mode of their own (``/ask why?``): Aider
# logs the message it sends as a prompt of its own right after the command: the question
# again (``/ask hi`` then `` hi``), or for ``/help`` the question with the documents found
# for it (``# Question: hi``, ``# Relevant docs:`` …).
_MODE_COMMAND = re.compile(r"^/(ask|code|architect|context|help)\s+(\S.*)$", re.S)
_HELP_MESSAGE = re.compile(r"# Question:.*?^# Relevant docs:", re.S | re.M)
# The message Aider sends the model to fix what its linter found (``--lint``, ``/lint``,
# or after an edit): its linter's report, headed by this line, logged as a prompt.
_LINT_MESSAGE = "# Fix any errors below, if possible."
# The file the report is about: the line after "## See relevant line(s) below marked …".
_LINTED = re.compile(r"^## See relevant lines? below marked with .*\n+(\S[^\n]*?):[ \t]*$", re.M)
# An Emacs mode line (``-*- mode: fundamental -*-``), the first line of some old logs.
_MODE_LINE = re.compile(r"^-\*-.*-\*-\s*$")


def parse_run(
    run: Run,
    session_id: str,
    path: Path,
    started: datetime | None,
    cwd: str | None = None,
    typed: list[tuple[datetime, str]] | None = None,
    problems: list[Problem] | None = None,
) -> Session:
    """One run's lines as a session: prompts, replies, Aider's output, usage and cost;
    ``typed`` (from ``.aider.input.history``) dates the prompts. A run nobody typed in has
    no messages; when it changed the code, ``problems`` is told."""
    builder = _RunBuilder(f"{session_id}:", typed)
    lines = run.lines
    if run.header is None and lines and _MODE_LINE.match(lines[0]):
        lines = lines[1:]  # an Emacs mode line heading an old log: the file's, no session's
    for kind, block in blocks(lines):
        builder.add(kind, block)
    builder.flush_interrupt()
    if builder.run_usage.started_before:
        builder.forget_banner_model()
    # (a run nobody typed in is a conversation when Aider asked the model and it answered)
    talked = any(m.role == "user" for m in builder.messages) or (
        builder.sent and conversation(builder.messages)
    )
    messages = builder.messages if talked else []
    changed = builder.actions or builder.command_actions
    if not conversation(messages) and changed and problems is not None:
        problems.append(builder.unprompted_change(path, run.first_line))
    title, title_from = run_title(messages, builder.linted) if messages else (None, None)
    return Session(
        source=SOURCE,
        session_id=session_id,
        messages=tuple(messages),
        source_path=path,
        project=path.parent.name or None,
        cwd=cwd or str(path.parent),
        models=tuple(builder.models),
        title=title,
        title_from=title_from,
        started_at=started,
        ended_at=builder.last_typed,
        usage=builder.run_usage.usage,
        cost=builder.run_usage.cost(),
        extra={"aider_version": builder.version} if builder.version else {},
        command=builder.command(),
    )


def without_banner(lines: list[str]) -> list[str]:
    """A run's lines without the start-up banner it opens with (the command line, version,
    models, repository, repo map): for a run joined to the one before that another Aider
    wrote, whose banner says nothing of this session."""
    at = 0
    while at < len(lines) and (
        not lines[at].strip()
        or lines[at].startswith("> ")
        and (lines[at][2:].startswith(_BANNER) or is_command(lines[at][2:]))
    ):
        at += 1
    return lines[at:]


class _RunBuilder:
    def __init__(self, id_prefix: str, typed: list[tuple[datetime, str]] | None = None) -> None:
        self.id_prefix = id_prefix
        self.typed = typed or []  # (time, text) of the run's inputs, in order
        self.last_typed: datetime | None = None
        self.messages: list[Message] = []
        self.models: list[str] = []
        self.model: str | None = None
        self.version: str | None = None
        self.run_usage = RunUsage()
        self.banner_models: list[str] = []  # the models the start-up banner named
        self.switched_at: int | None = None  # the message count at the first /model switch
        self.after_command = False
        self.after_switch = False  # the command was a model or chat-mode switch (/model)
        # Ctrl-C: a reply it cut off is logged after Aider's report of it, so the notice
        # waits for that reply. ``turn_done``: nothing was running, so a Ctrl-C stopped
        # nothing: a finished turn (its usage line), a command that asks nothing (``/diff``)
        # or one whose output is in (``/run``'s), a request that failed for good.
        self.interrupt_waits = False
        self.turn_done = False
        self.prompted = False
        self.replied = False  # the model has answered (a prompt, or a --lint or --message)
        self.launch = Launch()  # the command line that started Aider
        # "Applied edit to …", "Commit …" lines: before anything was typed (the aider
        # command's own: --apply, --lint --commit), and after a command (/undo, /commit)
        self.actions: list[str] = []
        self.command_actions: list[str] = []
        self.command_typed = False
        self.echo: str | None = None  # a mode command's question, which Aider sends next
        self.sent = False  # Aider sent the model a message of its own (a lint report)
        self.linted: str | None = None  # the file of the first lint report it sent
        self.edits = 0  # edits applied (each an ``edit`` call, for the note's files)
        self.failed_edits = 0  # edit blocks Aider could not apply (each a failed ``edit``)
        self.skipped_edits = 0  # edit blocks it did not apply (each an ``edit`` not run)

    def add(self, kind: str, lines: list[str]) -> None:
        text = "\n".join(lines).strip("\n")
        if kind == "user":
            self._prompt(text)
        elif kind == "aider":
            self.echo = None
            self._aider(lines)
        elif text.strip():
            text = "\n".join(tag_fences_as_markdown(lines)).strip("\n")
            self._message("assistant", [TextPart(text)], self.model)
            self.flush_interrupt()
            self.after_command = False
            self.replied = True
            self.turn_done = False
            self.echo = None

    def _prompt(self, text: str) -> None:
        self.flush_interrupt()
        self.prompted = True
        stripped = text.strip()
        echo, self.echo = self.echo, None
        if stripped == _BLANK:
            self.after_command = False  # what Aider prints next is not a command's output
            return
        if not stripped:
            return
        if echo is not None and stripped == echo:
            return  # the words of the command just shown, sent on by Aider: no new prompt
        if stripped.startswith(_LINT_MESSAGE) or _HELP_MESSAGE.match(stripped):
            self._sent(text)
            return
        if stripped.startswith("!"):  # Aider's shell escape, as a shell's own ``!``
            part: Part = CommandPart(stripped[1:].strip(), shell=True)
        elif stripped.startswith("/"):
            mode = _MODE_COMMAND.match(stripped)
            # (A question about the code, not about Aider: /help's is Aider's to answer.)
            part = CommandPart(stripped, asks=mode is not None and mode.group(1) != "help")
            self.echo = mode.group(2).strip() if mode else None
        else:
            part = TextPart(text)
        self.after_command = not isinstance(part, TextPart)
        self.turn_done = not asks(part)  # a request typed: a Ctrl-C now stops it
        self.after_switch = isinstance(part, CommandPart) and _switches(stripped)
        self.command_typed = self.command_typed or self.after_command
        self._message("user", [part], when=self._typed_at(stripped))

    def _sent(self, text: str) -> None:
        """A message Aider wrote and sent the model, logged as a prompt: ``/help``'s question
        with the documents found for it, or its linter's report (``--lint``, ``/lint``).
        Aider's output, not the person's words: under the command that made it, or, when
        nobody typed one, Aider's own."""
        self.sent = True
        self.turn_done = False  # a request: Aider asks the model
        if text.strip().startswith(_LINT_MESSAGE) and self.linted is None:
            found = _LINTED.search(text)
            self.linted = found.group(1).strip() if found else None
        self._message("user" if self.after_command else "system", [CommandOutputPart(text)])

    def _typed_at(self, text: str) -> datetime | None:
        """When this prompt was typed: the next input-history entry with the same text."""
        wanted = _comparable(text)
        for i, (when, typed) in enumerate(self.typed):
            if _comparable(typed) == wanted:
                del self.typed[: i + 1]
                self.last_typed = when
                return when
        return None

    def _aider(self, lines: list[str]) -> None:
        kept: list[str] = []
        joined = False
        skip_to = 0  # the end of a --verbose settings dump: none of it is the note's
        for n, line in enumerate(lines):
            if joined or n < skip_to:  # the second half of the usage line before; a dump
                joined = False
                continue
            if line.startswith("Tokens: ") and lines[n + 1 : n + 2] != []:
                if lines[n + 1].startswith("Cost: "):  # older Aider split it in two
                    line, joined = f"{line} {lines[n + 1]}", True
            if _CTRL_C.match(line):
                self._output("\n".join(kept).strip())
                kept = []
                self._interrupted()
                continue
            answer = _ANSWER.match(line)
            if answer and answer.group(2).strip().lower() not in _YES_NO:
                kept.append(answer.group(1))  # what Aider asked; what was typed is a prompt
                self._output("\n".join(kept).strip())
                kept = []
                self._prompt(answer.group(2).strip())
                continue
            # Aider's banner: what it printed as it started, before anything was typed or
            # answered, or again after a /model switch; a "Models: …" line anywhere else is
            # a command's or a tool's output (a script's debug print), no banner's.
            banner = not self.prompted and not self.replied
            skip_to = self.launch.settings_dump(lines, n, banner, not self.messages)
            if skip_to > n:
                continue
            model = _MODEL.match(line)
            if model and banner:
                self._use_model(model.group(1))
                self.banner_models.append(model.group(1))
            elif model and self.after_command and self.after_switch:
                self._use_model(model.group(1))
                if self.switched_at is None:
                    self.switched_at = len(self.messages)
            usage = USAGE_LINE.match(line)
            if usage:
                self.turn_done = self.replied
                self.run_usage.count(usage.group("tokens"), usage.group("cost") or "")
            elif banner and self.launch.echoed(line, kept, not self.messages):
                pass  # the command line that started Aider
            elif banner and line.startswith(_BANNER):
                if line.startswith("Aider v"):
                    self.version = line.split()[1].removeprefix("v")
            else:
                kept.append(line)
                if _ACTION.match(line):
                    (self.command_actions if self.command_typed else self.actions).append(
                        line.strip()
                    )
        self._output("\n".join(kept).strip())

    def _interrupted(self) -> None:
        """The person pressed Ctrl-C: said once, however many times Aider reports it, and
        only where it stopped something, a reply or a request (one to leave Aider before
        any prompt stops nothing, nor does one at Aider's prompt after a finished turn, a
        command's output or a failed request: ``turn_done``). Right after a prompt it cut
        off the reply logged next: said after that reply."""
        last = self.messages[-1] if self.messages else None
        said = self.interrupt_waits or (
            last is not None
            and len(last.parts) == 1
            and isinstance(last.parts[0], NoticePart)
            and last.parts[0].notice == "interrupted"
        )
        if said or self.turn_done or not conversation(self.messages):
            return
        if last is not None and last.role == "user" and any(asks(p) for p in last.parts):
            self.interrupt_waits = True
        else:
            self._message("user", [NoticePart("interrupted")])

    def flush_interrupt(self) -> None:
        """The Ctrl-C waiting for the reply it cut off, said where that reply ends (or, with
        no reply after it, where Aider's next line or prompt is)."""
        if self.interrupt_waits:
            self.interrupt_waits = False
            self._message("user", [NoticePart("interrupted")])

    def _output(self, text: str) -> None:
        """Aider's own output: a command's (the person's, after it) or a tool's (what the
        model's reply did: an edit applied, a commit). Before any prompt or reply it is what
        the ``aider`` command printed as it started (files added to the chat, warnings, a
        ``--lint`` run's output): Aider's, the harness's, not the model's."""
        if not text:
            return
        self.flush_interrupt()
        if self.after_command:
            self.turn_done = True  # the command's output is in: it ran
            self._message("user", [CommandOutputPart(text)])
        elif not self.prompted and not self.replied:
            self._message("system", [CommandOutputPart(text)])
        else:
            self._tool_output(text)

    def _tool_output(self, text: str) -> None:
        """What the reply did, in order (aider_output.segments): each applied edit an
        ``edit`` of its file (for the note's ``files``), its result that line and the lines
        after it (``Commit …``); an edit block Aider could not apply a failed ``edit`` of
        the file it names; an edit block it did not apply (``Skipping edits to <path>``,
        ``Did not apply edit to <path> (--dry-run)``) an ``edit`` of that file that did not
        run, of its own; a failed request to the model an API error notice; other lines
        (``Committing … before applying edits``; ``Skipping <path> that matches aiderignore
        spec.``, a part of its own) as they were. Aider made the edits: calls
        and results are its output (no message of the model's more)."""
        for part in segments(text):
            output = part.text
            if part.what in ("edit", "failed"):
                failed = part.what == "failed"
                if failed:
                    self.failed_edits += 1
                else:
                    self.edits += 1
                number = self.failed_edits if failed else self.edits
                call_id = f"{self.id_prefix}{'failed-edit' if failed else 'edit'}{number}"
                call = ToolCallPart("edit", {"path": part.path} if part.path else {}, call_id)
                self._message("tool", [call, ToolResultPart(output, call_id, is_error=failed)])
            elif part.what == "skipped":
                self.skipped_edits += 1
                call_id = f"{self.id_prefix}skipped-edit{self.skipped_edits}"
                call = ToolCallPart("edit", {"path": part.path}, call_id)
                result = ToolResultPart(output, call_id, not_run=part.not_run)
                self._message("tool", [call, result])
            elif part.what == "api" and output.strip():
                self.turn_done = self.turn_done or not part.retried  # failed for good
                self._message("system", [NoticePart("error", output.strip())])
            elif output.strip():
                self._message("tool", [ToolResultPart(output)])

    def unprompted_change(self, path: Path, line: int) -> Problem:
        """A run nobody typed in that changed the code (``aider --apply …``, ``aider
        --commit``, ``--lint``), or one of commands alone that did (``/undo``): no
        conversation, so no note, but not left unsaid. What changed before anything was
        typed is the ``aider`` command's doing, not a command typed after it."""
        said = []
        if self.actions:
            what = _first_three(self.actions)
            if self.launch.line:
                what = f"{self.command()}: {what}"
            said.append(f"a run with no prompt changed the code ({what})")
        if self.command_actions:
            typed = [
                p.command for m in self.messages for p in m.parts if isinstance(p, CommandPart)
            ]
            what = _first_three(self.command_actions)
            lead = "commands typed in it" if said else "a run of commands alone"
            said.append(f"{lead} ({_first_three(typed)}) changed the code ({what})")
        message = ", and ".join(said) + "; it holds no conversation, so no note"
        return Problem(str(path), message, line, "warning", SOURCE)

    def command(self) -> str | None:
        """The command line that started Aider, as typed (``aider --model sonnet``)."""
        return self.launch.command()

    def forget_banner_model(self) -> None:
        """The banner is another Aider's (``started_before``): its model is not the one that
        answered, up to a ``/model`` switch that names it."""
        end = len(self.messages) if self.switched_at is None else self.switched_at
        self.messages[:end] = [
            replace(m, model=None) if m.model in self.banner_models else m
            for m in self.messages[:end]
        ]
        named = {m.model for m in self.messages if m.model}
        self.models = [m for m in self.models if m not in self.banner_models or m in named]

    def _use_model(self, model: str) -> None:
        self.model = model
        if model not in self.models:
            self.models.append(model)

    def _message(
        self, role: Role, parts: list[Part], model: str | None = None, when: datetime | None = None
    ) -> None:
        source_id = f"{self.id_prefix}{len(self.messages) + 1}"
        self.messages.append(Message(role, tuple(parts), source_id, when, model))


def _first_three(items: list[str]) -> str:
    return "; ".join(items[:3] + ([f"{len(items) - 3} more"] if len(items) > 3 else []))


def _comparable(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def _switches(typed: str) -> bool:
    """A command that switches the model or the chat mode (``/model gpt-4o``, ``/chat ask``),
    after which Aider prints its banner again."""
    name = typed.split(None, 1)[0].lower()
    if "/editor".startswith(name):
        return False  # (``/edit``, ``/editor``: Aider's command that opens an editor)
    return len(name) > 2 and any(switch.startswith(name) for switch in _SWITCHES)
