"""OpenCode and Kilo in the demo home: ``write(home)`` adds them (make_demo_home calls it).

- ``~/.local/share/opencode/opencode.db``: a session that edits a web shop's cart with
  reasoning, tool calls (one failing), a patch, step costs and a subagent (a child session
  found through ``parent_id``);
- ``~/.local/share/opencode/storage/``: the legacy JSON tree, holding that same session (an
  older copy: the database's is exported) and one session found only there;
- ``~/.local/share/kilo/kilo.db``: a Kilo session with its own cost.
"""

from __future__ import annotations

from pathlib import Path

from opencode_builder import (
    OpenCodeStore,
    compaction,
    patch,
    reasoning,
    step_finish,
    step_start,
    text,
    tool,
)

CART_ID = "ses_2a7f0c3e1ffeDemoCartTotal"
EXPLORE_ID = "ses_2a7f0b91affeDemoExplore"
OLD_ID = "ses_3c11d2e0fffeDemoOldTree"
KILO_ID = "ses_2a6e11c4effeDemoKiloDocs"


def write(home: Path) -> None:
    share = home / ".local" / "share"
    store = OpenCodeStore()
    old = store.session("Add a dark mode toggle", "/home/dev/work/shop", ident=OLD_ID)
    store.user(old, text("Add a dark mode toggle to the header."))
    store.assistant(
        old, step_start(), tool("edit", {"filePath": "src/Header.tsx", "oldString": "<nav>",
                                         "newString": "<nav>\n  <ThemeToggle />"},
                                "Edited src/Header.tsx", title="src/Header.tsx"),
        text("Added `<ThemeToggle />` to the header."), patch("src/Header.tsx"),
        step_finish(0.0041, 2100, 80, read=900), model=("openai", "gpt-5"),
    )  # fmt: skip
    cart = store.session("Fix the cart total rounding", "/home/dev/work/shop", ident=CART_ID)
    explore = store.session("Find the price code", "/home/dev/work/shop", cart, ident=EXPLORE_ID)
    store.user(cart, text("The cart total is off by a cent on some orders. Find out why."))
    store.assistant(
        cart, step_start(), reasoning("Rounding per line item can drift; check where totals are summed."),
        tool("task", {"description": "Find the price code", "prompt": "Where are cart totals computed?",
                      "subagent_type": "explore"}, "src/cart.ts sums rounded line totals.",
             title="Find the price code", metadata={"sessionId": EXPLORE_ID}, call_id="call_task"),
        tool("bash", {"command": "npm test -- cart", "description": "Run the cart tests"},
             status="error", error="1 failing: total of 3 × 0.335 is 1.01, expected 1.00",
             metadata={"exit": 1}, title="Run the cart tests", call_id="call_test"),
        step_finish(0.0182, 5400, 210, reasoning=120, read=3000, write=1200), step_start(),
        tool("edit", {"filePath": "src/cart.ts", "oldString": "sum(lines.map(round))",
                      "newString": "round(sum(lines))"}, "Edited src/cart.ts", title="src/cart.ts",
             call_id="call_edit"),
        text("Each line was rounded before summing. The total is now rounded once, after the sum."),
        patch("src/cart.ts"), step_finish(0.0067, 800, 95, read=8200),
    )  # fmt: skip
    store.user(explore, text("Where are cart totals computed?"), agent="explore")
    store.assistant(
        explore, tool("grep", {"pattern": "total", "path": "src"}, "src/cart.ts:14: return sum(lines.map(round))",
                      title="total"), text("src/cart.ts sums rounded line totals."),
        step_finish(0.0009, 600, 40),
    )  # fmt: skip
    data = share / "opencode"
    # the tree was written before the migration: it holds the old session and an early copy
    # of the cart session, which the database's fuller copy replaces
    store.write_tree(data / "storage", [old, cart])
    store.user(cart, compaction(auto=True))
    store.assistant(cart, text("Cart totals were off because lines were rounded first; fixed."),
                    summary=True)  # fmt: skip
    store.user(cart, text("Thanks, please also add a test."))
    store.assistant(
        cart, tool("write", {"filePath": "test/cart.test.ts", "content": "test('3 × 0.335', () => {\n"
                             "  expect(total([0.335, 0.335, 0.335])).toBe(1.01)\n})\n"},
                   "Wrote test/cart.test.ts", title="test/cart.test.ts"),
        text("Added `test/cart.test.ts`."), step_finish(0.0031, 300, 60, read=9100),
    )  # fmt: skip
    store.write_db(data / "opencode.db", [cart, explore])

    kilo = OpenCodeStore()
    docs = kilo.session("Document the API", "/home/dev/work/api", ident=KILO_ID)
    kilo.user(docs, text("Write a short README section for the /health endpoint."))
    kilo.assistant(
        docs, step_start(), text("## Health\n\n`GET /health` returns `{\"ok\": true}` when the service is up."),
        step_finish(0.0012, 400, 45), model=("kilo", "claude-sonnet-5"),
    )  # fmt: skip
    kilo.write_db(share / "kilo" / "kilo.db")
