"""The real Aider logs in ../shared/corpus/aider (the Aider author's own history of 1,133
runs, and a small synthetic one) export end to end: one note per run that holds a
conversation, every prompt and every reply findable in the notes. (How long the big one
takes is measured by hand and in the README, never by a timed test.)"""

from __future__ import annotations

import re
import shutil
from datetime import UTC

import pytest
from aider_builder import CORPUS_BIG as BIG
from aider_builder import CORPUS_SMALL as SMALL
from conftest import normalize, note_files

from exporter.adapters import SourceContext
from exporter.adapters.aider import AiderAdapter
from exporter.export import ExportOptions, run_export
from exporter.model import CommandPart
from exporter.redact import redact_text

pytestmark = pytest.mark.corpus


@pytest.fixture
def home(corpus, tmp_path):
    home = tmp_path / "home"
    for repo, name in (("aider", BIG), ("myrepo", SMALL)):
        (home / "src" / repo).mkdir(parents=True)
        shutil.copyfile(corpus / "aider" / name, home / "src" / repo / ".aider.chat.history.md")
    return home


def test_every_run_with_a_prompt_is_a_session(home, corpus):
    adapter = AiderAdapter()
    refs = list(adapter.discover(SourceContext(home, {}, False)))
    sessions = [s for ref in refs for s in adapter.load(ref).sessions]
    raw = (corpus / "aider" / BIG).read_text(encoding="utf-8")
    runs = re.split(r"(?m)^# aider chat started at .*$", raw)
    # (an empty input, "#### <blank>", is no prompt: two runs have nothing else)
    with_prompt = [r for r in runs[1:] if re.search(r"(?m)^####(?! <blank>[ \t]*$)", r)]
    big = [s for s in sessions if s.project == "aider"]
    # The text before the first header (the log starts in the middle of a run) holds only
    # the lint report Aider sent the model, which never answered: no one talked there.
    # 14 runs with a prompt went on an Aider started before their header (a short-lived
    # Aider's banner came between: the first request's running total is that earlier run's
    # plus its own cost): they are that run's session. Lines logged after an Aider exited
    # ("^C KeyboardInterrupt") are another Aider's: in 4 runs they are a session of their own
    # (one of those runs, 17:18:01, was taken whole into the run its later prompts went on),
    # and one run (21:50:42) had prompts only after its exit, which went on an earlier run
    assert len(big) == len(with_prompt) - 14 + 4 - 1
    assert len({s.session_id for s in sessions}) == len(sessions)
    assert sum(1 for s in big if s.cost) > 300  # from the "> Tokens: … Cost: …" lines
    small = [s for s in sessions if s.project == "myrepo"]
    assert len(small) == 2  # the third run is empty


def test_the_logs_export_with_every_prompt_and_reply_findable(home, corpus, tmp_path):
    vault = tmp_path / "v"
    report = run_export(ExportOptions(vault=vault, home=home, sources=["aider"], timezone=UTC))
    assert not report.failed
    # runs nobody typed in that changed the code (``aider --lint --commit``, ``--apply``)
    # and made no model request (those go on the run before): each said once
    raw = (corpus / "aider" / BIG).read_text(encoding="utf-8")
    changed = re.compile(r"(?m)^> (Applied edit to |Commit [0-9a-f]{7,40}\b)")
    one_shots = [
        r for r in re.split(r"(?m)^# aider chat started at .*$", raw)[1:]
        if not re.search(r"(?m)^(####|> Tokens: )", r) and changed.search(r)
    ]  # fmt: skip
    # and runs of commands alone that did (/undo took commits back): said as well
    undone = re.compile(
        r"(?m)^> (Applied edit to |Commit [0-9a-f]{7,40}\b|Removed: [0-9a-f]{7,40}\b)"
    )
    commands_alone = [
        r for r in re.split(r"(?m)^# aider chat started at .*$", raw)[1:]
        if (typed := [t[4:].strip() for t in re.findall(r"(?m)^####.*$", r)])
        and all(t.startswith(("/", "!")) or t in ("", "<blank>") for t in typed)
        and not re.search(r"(?m)^> Tokens: ", r) and undone.search(r)
    ]  # fmt: skip
    # (one of the 57, line 5191, ``aider --show-prompt``, printed the commit of the Aider
    # that was running: it is that Aider's run, joined with the prompts after it)
    # Lines logged after an Aider exited, another Aider's, moved: said once each where they
    # begin (9; two more, "/ex" and "/diff" alone, are in no note either way: not said),
    # or as the run of commands alone they now are (/undo twice, lines 44645 and 59046;
    # the one of line 44645 was in a run with a conversation before)
    moved = [p for p in report.problems if "logged after an Aider exited" in p.message]
    assert len(moved) == 9
    assert len(one_shots) == 57 and len(commands_alone) == 6 and len(report.problems) == 62 + 10
    said = [p.message for p in report.problems if "no prompt changed the code" in p.message]
    # three of the runs of commands alone changed the code only as Aider started (a commit
    # it printed before anything was typed): the aider command's doing, not the /ex after it
    assert len(said) == 59 and {p.severity for p in report.problems} == {"warning"}
    alone = [p.message for p in report.problems if "commands alone" in p.message]
    assert len(alone) == 3 + 1 and any(
        "(/undo) changed the code (Removed: 04c3260" in m for m in alone
    )
    assert not any("(/ex)" in p.message for p in report.problems)
    assert any("(aider --lint --commit: Commit fc055a1 fix: Remove unused" in m for m in said)
    assert any("(aider --lint --commit: Commit d0ffbf1 fix: Reorder imports" in m for m in said)
    notes = note_files(vault)
    # (18 runs of commands alone, /tokens, !ls, had notes only because their output was
    # taken for replies: below; so had 12 runs of "/help …" that Aider never answered,
    # because its message for the command looked like a prompt. The one "/ask …" the model
    # never answered keeps its note: the person's question)
    # (14 runs' prompts went on an earlier Aider, whose note holds them: above)
    # (+3 -2 where Aiders exited: the run of 17:18:01, taken whole into another before, and
    # two runs' prompts logged after their exit are notes of their own; two runs whose
    # conversation was all logged after their exit have none: it went on an earlier run)
    assert len(notes) == 553
    text = "\n".join(b.decode() for b in notes.values())
    # Older Aider marked only the first line of its own output with ">": the rest of a
    # command's output (pytest's, 31 times) and the second half of a usage line (122
    # times) showed as the model's reply.
    assert "\nplatform darwin" not in text and "\n> platform darwin" in text
    assert "\nCost: $" not in text
    everything = normalize(text)
    prompts, replies = _prompts_and_replies((corpus / "aider" / BIG).read_text(encoding="utf-8"))
    # secrets typed into a prompt are in the note as [REDACTED:…] placeholders
    missing = [
        p[:80] for p in prompts if normalize(redact_text(p), escaped=False) not in everything
    ]
    assert len(prompts) > 750 and missing == []
    missing = [r[:80] for r in replies if normalize(redact_text(r)) not in everything]
    assert len(replies) > 600 and missing == []
    small = next(v.decode() for k, v in notes.items() if "/myrepo/" in k and "retry" in k)
    assert "Applied edit to src/webhook.py" in small and "Step 1" in small


def _prompts_and_replies(raw: str) -> tuple[list[str], list[str]]:
    """Plain prompts (not /commands, nor the messages Aider logs as prompts: a mode
    command's question again, /help's documents, a lint report) and the first paragraph of
    each reply, in the log. (A reply's own "#### " lines, without Aider's two spaces, are
    the reply's.)"""
    prompts, replies, lines = [], [], raw.splitlines()
    mode = re.compile(r"#### /(?:ask|code|architect|context|help)\s+(\S.*?)\s*$")
    asked = None  # the question of the last mode command
    for i, line in enumerate(lines):
        if line.startswith("#### ") and line.endswith("  "):
            first = not lines[i - 1].startswith("#### ")
            if first and (typed := line[5:].strip()) and typed != asked:
                asked = m.group(1) if (m := mode.match(line)) else None
                if not typed.startswith(("/", "!", "<blank>", "# Question:", "# Fix any errors")):
                    prompts.append(line[5:].rstrip())
        elif line and lines[i - 1] == "" and i > 1 and lines[i - 2].startswith("#### "):
            if not line.startswith((">", "#", "`", "<", "=")) and len(line) > 20:
                replies.append(line)
    return prompts, replies


def test_a_nested_aider_does_not_cut_the_reply_edit_and_commit_off_the_run(home):
    """Line 10218 ``#### /run aider ~/tmp/foo.txt README.me``: the child Aider wrote its
    header (line 10220, 13:27:21) into the log; the parent's question, the model's reply
    editing ``guessed_wrong_repo`` and ``Commit 9c8baa1`` follow it and belong to the run
    started at 13:24:55 (line 9930), in order, after the command."""
    adapter = AiderAdapter()
    refs = list(adapter.discover(SourceContext(home, {}, False)))
    assert not [r for r in refs if r.session_id.endswith("-20240807132721")]
    (ref,) = [r for r in refs if r.session_id.endswith("-20240807132455")]
    (session,) = adapter.load(ref).sessions
    parts = [(m.role, p) for m in session.messages for p in m.parts]
    command = next(
        i for i, (_, p) in enumerate(parts)
        if isinstance(p, CommandPart) and p.command == "/run aider ~/tmp/foo.txt README.me"
    )  # fmt: skip
    after = [(role, _text(p)) for role, p in parts[command + 1 :]]
    output = next(i for i, (_, t) in enumerate(after) if "Files are in different git repos" in t)
    reply = next(
        i
        for i, (r, t) in enumerate(after)
        if r == "assistant" and "except SuitableRepoNotFound:" in t
    )
    commit = next(i for i, (_, t) in enumerate(after) if "Commit 9c8baa1 fix: Handle files" in t)
    assert output < reply < commit
    assert session.cost == pytest.approx(0.24)  # Aider's running total, from the last request


def _text(part) -> str:
    return getattr(part, "text", None) or getattr(part, "output", None) or ""


def test_aiders_own_messages_headings_and_edits_read_as_what_they_were(home, tmp_path):
    """The corpus cases of the dec4g audit (F2, F3, F4, F8, F9), by their lines in the log."""
    vault = tmp_path / "v"
    run_export(ExportOptions(vault=vault, home=home, sources=["aider"], timezone=UTC))
    notes = {k.rsplit(" ", 1)[-1][:8]: v.decode() for k, v in note_files(vault).items()}
    # F2, run 37523: "/ask hi" and its echo " hi", "/help hi" and Aider's 230 lines of
    # documents: two prompts, the documents folded as Aider's output, in no User turn
    ask = notes["bc944c9c"]
    assert "\nprompts: 2\n" in ask and "\n### User\n\n hi\n" not in ask
    assert "\n> [!note]- Output\n> ```text\n> # Question:  hi\n" in ask
    assert not any("# Relevant docs" in n.split("\n### User\n\n```", 1)[-1][:200]
                   for n in notes.values() if "\n### User\n\n```" in n)  # fmt: skip
    # F3, run 29352 (aider --lint --commit): the report is Aider's; titled by its question
    lint = notes["1c2383e5"]
    assert "title: Fix lint errors in `aider/coders/base_coder.py`\n" in lint
    assert "\nprompts: 0\n" in lint and "### User" not in lint
    assert sum("title: Fix lint errors in `" in n for n in notes.values()) == 11
    assert not any("title: Fix any errors" in n for n in notes.values())
    # F4: the reply's headings (lines 10709, 10736) and the edit block holding "#### /help
    # How do I use ollama?" (42880, 42889, 42894) are the reply's, the block whole
    headings = notes["34bdfb20"]
    assert "\n###### `InputOutput` Class\n" in headings and "\nprompts: 9\n" in headings
    edit = notes["2ba24f6f"]
    assert "\n````markdown\n<<<<<<< SEARCH\n#### /help How do I use ollama?\n" in edit
    assert "\n### User\n\n`/code Add a function" not in edit and "\\</source>" not in edit
    # F8: every applied edit is in the note's files (182 notes applied edits, 197 before 14
    # runs' prompts went on the earlier Aider they were typed into, 184 before the prompts
    # after two Aiders' exits went on the earlier run whose costs they continue)
    with_files = [n for n in notes.values() if "\nfiles:\n" in n]
    assert len(with_files) == 182 == sum("Applied edit to" in n for n in notes.values())
    assert "\nfiles:\n- aider/coders/base_coder.py\n" in notes["4bdd5651"]
    # F9: titled by the question asked, not by "/add aider/io.py" before it
    assert "title: move the `prompt_toolkit` imports to the top\n" in notes["38d1ce5d"]
    titles = [re.search(r"(?m)^title: (.*)$", n).group(1) for n in notes.values()]
    assert not [t for t in titles if t.startswith(("/add ", "/model "))]


def test_models_are_the_banners_bare_ids_and_costs_are_counted_once(home, corpus, tmp_path):
    """The corpus cases of the third audit, by their lines in the log."""
    vault = tmp_path / "v"
    run_export(ExportOptions(vault=vault, home=home, sources=["aider"], timezone=UTC))
    notes = {k.rsplit(" ", 1)[-1][:8]: v.decode() for k, v in note_files(vault).items()}
    models = {m for n in notes.values() for m in re.findall(r"(?m)^model: (.*)$", n)}
    # line 66094, a /run's debug print "Models: ['claude-3-opus-20240229', …]": no model
    assert "\nmodel: claude-3-5-sonnet-20240620\n" in notes["29d72383"]
    assert not [m for m in models if not re.fullmatch(r"[\w./:@-]+", m)]
    # line 82128, "anthropic/claude-3-haiku-20240307⚡": the badge is no part of the id
    assert "anthropic/claude-3-haiku-20240307" in models
    # line 4019, an "aider --model gpt-4 --exit" banner, then prompts typed into the sonnet
    # Aider of 08:55:14 ("$0.04 request, $0.78 session"): that Aider's note, counted once
    assert not [k for k in notes if k == "1886b4b0"]
    running = notes["9fc38a46"]
    assert "\n`/test pytest tests/basic/test_main.py`\n" in running
    assert "\nmodel: claude-3-5-sonnet-20240620\n" in running and "\ncost: 0.82\n" in running
    # the notes' costs add up to what the log's requests cost (they came to $29.39 against
    # $25.59 when such runs counted the earlier Aider's spending again)
    noted = sum(float(c) for n in notes.values() for c in re.findall(r"(?m)^cost: (.*)$", n))
    raw = (corpus / "aider" / BIG).read_text(encoding="utf-8")
    asked = sum(
        float(c.replace(",", "")) for c in re.findall(r"\$([\d.,]+) (?:request|message)\b", raw)
    )
    assert asked == pytest.approx(25.59, abs=0.01) and abs(noted - asked) < 0.3


def test_ctrl_c_is_said_after_the_reply_it_cut_and_not_when_aider_was_quit(home, tmp_path):
    vault = tmp_path / "v"
    run_export(ExportOptions(vault=vault, home=home, sources=["aider"], timezone=UTC))
    notes = {k.rsplit(" ", 1)[-1][:8]: v.decode() for k, v in note_files(vault).items()}
    # line 2267: the prompt, "^C again to exit", then the reply it cut off, logged after
    cut = notes["3314c2bd"].split("use GitTemporaryDirectory\n", 1)[1]
    assert cut.startswith("\n### Assistant\n\nCertainly! I'll make the necessary changes")
    assert "=======\n```\n\n*Interrupted by the user.*" in cut
    # lines 81862-81871: a finished turn (usage, edit, commit), then Ctrl-C twice to quit
    ending = [n.split("%% ccexport:end", 1)[0].rstrip() for n in notes.values()]
    assert not notes["92d022b8"].split("%% ccexport:end", 1)[0].rstrip().endswith("*")
    # (98 since the run of 17:18:01, its reply cut and Aider quit, is a note of its own;
    # 57 since a Ctrl-C after a command's output, after a command that asks nothing or
    # after a request that failed for good stopped nothing: review12 F4)
    assert sum(e.endswith("*Interrupted by the user.*") for e in ending) == 57  # 173 before
    # lines 60060-60069: /undo, its output, then the two Ctrl-C that quit Aider
    assert ending[list(notes).index("a3110832")].endswith(
        "> You can use /undo to undo and discard each aider commit.\n> ```"
    )
    # lines 2912-2916: /add, its output, Ctrl-C: no interruption; the two replies cut
    # mid-stream are (one at line 234 of the note, after main(["--no-)
    added = notes["9fc38a46"].split("%% ccexport:end", 1)[0]
    assert added.count("*Interrupted by the user.*") == 2
    assert added.count("\n```\n\n*Interrupted by the user.*") == 2
    assert 'main(["--no-\n```\n\n*Interrupted by the user.*' in added


def test_lines_after_an_aider_exited_are_the_run_still_open_or_their_own(home, tmp_path):
    """review12 F1, source lines 57356-58093: the rest of a French translation another Aider
    was streaming, its usage and its outcome, logged after the privacy run's Aider exited
    (57887), showed as the privacy run's reply (tokens_in 17111)."""
    vault = tmp_path / "v"
    report = run_export(ExportOptions(vault=vault, home=home, sources=["aider"], timezone=UTC))
    notes = {k.rsplit(" ", 1)[-1][:8]: v.decode() for k, v in note_files(vault).items()}
    privacy, french = notes["f19d73ec"], notes["1104bfd0"]
    assert "\ntokens_in: 1882\n" in privacy and "Résultats de référence" not in privacy
    assert "--dry-run" not in privacy.split("\n---\n", 1)[1]
    assert "\ntokens_in: 15229\n" in french and "Résultats de référence" in french
    assert "Did not apply edit to HISTORY.md (--dry-run)" in french
    # line 61892: "do a bar graph …" is a session of its own, no more the jekyll run's
    graph = notes["3e958730"]
    assert "title: do a bar graph with the % code on the y-axis\n" in graph
    said = {p.line: p.message for p in report.problems if "after an Aider exited" in p.message}
    assert "the rest of a reply of the run at line 57356" in said[57888]
    assert "a session of their own" in said[61893]


def test_a_reply_started_again_or_broken_by_a_retry_keeps_its_code_as_code(home, tmp_path):
    """review12 F2, source lines 51337-52949 (note 20448dfe): the model started its answer
    again inside its open block (51567-51570), and Aider retried the request four times
    inside the reply's code (52142-52143 …): 169 headings of the translated HISTORY.md
    rendered live, the retries kept as lines of the file."""
    from markdown_it import MarkdownIt

    vault = tmp_path / "v"
    run_export(ExportOptions(vault=vault, home=home, sources=["aider"], timezone=UTC))
    notes = {k.rsplit(" ", 1)[-1][:8]: v.decode() for k, v in note_files(vault).items()}
    note = notes["20448dfe"]
    assert 'ont "(aider)" ajouté.\n```\n\n\nSure, I\'ll translate the entire content' in note
    assert note.count("> [!warning] API error\n> ```text\n> litellm.APIConnectionError") == 4
    assert "\n### Assistant\n\n```\nde GPT-4 Turbo (`gpt-4-1106-preview`)." in note
    # up to the reply's outcome, the note's own headings alone (what follows it is another
    # Aider's text, logged into this run with no fence: Markdown as written)
    reply = note.split("> [!example]- Tool output", 1)[0]
    tokens = MarkdownIt().parse(reply)
    titles = [tokens[k + 1].content for k, t in enumerate(tokens) if t.type == "heading_open"]
    assert titles[1:] == ["User", "Assistant", "Assistant"]  # (the reply, on after a retry)
