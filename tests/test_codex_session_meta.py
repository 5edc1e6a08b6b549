"""What a Codex rollout's ``session_meta`` says of where its session ran: the client
(``originator``, ``source``: Codex Desktop and the VS Code extension both write ``source:
"vscode"``), and the model provider, whose models are not priced at OpenAI's list prices
when it is not OpenAI (a local Ollama model, an Azure deployment, OpenRouter)."""

from __future__ import annotations

from datetime import UTC

import pytest
from codex_builder import CodexRollout
from conftest import load_sessions, note_files

from exporter.adapters.codex import CodexAdapter
from exporter.export import ExportOptions, run_export
from exporter.model import Usage
from exporter.notespec import PropertySettings
from exporter.prices import shipped_table
from exporter.stats import session_properties

TID = "019a0000-0000-7000-8000-0000000c0575"


def _session(home, *, went_down: bool = False, **meta):
    r = CodexRollout(TID, meta_fields=meta)
    r.user("hello")
    r.assistant("Hi.")
    r.tokens(120_000, 20_000, 3_000)
    if went_down:  # (a total lower than the last: which model used what is not known)
        r.tokens(90_000, 10_000, 2_000)
    r.write(home / ".codex")
    (session,), _ = load_sessions(CodexAdapter(), home)
    return session


@pytest.mark.parametrize(
    ("meta", "client"),
    [
        ({"originator": "Codex Desktop", "source": "vscode"}, "Codex Desktop"),
        ({"originator": "codex_vscode", "source": "vscode"}, "Codex VS Code extension"),
        ({"originator": "codex_cli_rs", "source": "cli"}, "Codex CLI"),
        ({"originator": "codex-tui", "source": "cli"}, "Codex CLI"),
        ({"originator": "codex_exec", "source": "exec"}, "codex exec"),
        ({"originator": "some_sdk_app", "source": "exec"}, "codex exec"),
        ({"originator": "Acme  Agent", "source": "unknown"}, "Acme Agent"),
        ({"originator": None, "source": None}, None),
    ],
)
def test_the_client_a_session_ran_in_is_read(tmp_path, meta, client):
    extra = _session(tmp_path, **meta).extra
    assert extra.get("client") == client


@pytest.mark.parametrize(
    ("provider", "priced"),
    [("openai", True), ("OpenAI", True), (None, True), ("", True),
     ("azure", False), ("ollama", False), ("openrouter", False)],
)  # fmt: skip
def test_only_openais_models_get_openais_list_price(tmp_path, provider, priced):
    """gpt-5-codex from another provider was priced at OpenAI's list price."""
    session = _session(tmp_path, model_provider=provider)
    props = session_properties(session)
    assert ("cost" in props) is priced
    if not priced:
        assert [name for name, _ in session.model_usage] == [f"gpt-5-codex@{provider}"]


def test_a_price_the_person_gives_the_provider_is_used(tmp_path):
    session = _session(tmp_path, model_provider="ollama")
    table = shipped_table().with_user({"*@ollama": {"input": 0, "output": 0, "cache_read": 0}})
    props = session_properties(session, PropertySettings(prices=table))
    assert props["cost"] == 0 and props["cost_estimated"] is True


def test_the_note_of_another_providers_session_has_no_cost(tmp_path):
    _session(tmp_path, model_provider="azure")
    vault = tmp_path / "vault"
    run_export(ExportOptions(vault=vault, home=tmp_path, timezone=UTC))
    (note,) = (b.decode() for b in note_files(vault).values())
    front = note.split("---")[1]
    assert "tokens_in:" in front and "cost" not in front and "model: gpt-5-codex" in front


def test_tokens_no_turn_is_known_for_are_named_with_the_provider_too(tmp_path):
    """After a total that went down, the whole session's tokens are priced at its main
    model's: named so, they got OpenAI's price after all."""
    session = _session(tmp_path, went_down=True, model_provider="azure")
    assert session.model_usage == (("gpt-5-codex@azure", Usage(80_000, 2_000, 10_000)),)
    assert "cost" not in session_properties(session)
    assert "cost" in session_properties(_session(tmp_path / "b", went_down=True))
