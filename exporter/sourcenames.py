"""Every source's name and label, light enough to import for ``--help``.

The registry (``adapters.ADAPTERS``) imports every adapter, which costs more than the whole
start-up budget; this table is what the command line shows, and what the configuration
checks source names against, before any adapter is needed. ``tests/test_cli_conventions.py``
checks it names exactly the registered adapters, in their order.
"""

from __future__ import annotations

SOURCES: dict[str, str] = {
    "claude-code": "Claude Code",
    "codex": "Codex",
    "cursor": "Cursor",
    "trae": "Trae",
    "copilot": "Copilot Chat (VS Code)",
    "gemini": "Gemini CLI",
    "antigravity": "Antigravity",
    "copilot-cli": "Copilot CLI",
    "opencode": "OpenCode",
    "kilo": "Kilo",
    "cline": "Cline",
    "roo-code": "Roo Code",
    "zoo-code": "Zoo Code",
    "kilo-code": "Kilo Code (legacy extension)",
    "aider": "Aider",
}
