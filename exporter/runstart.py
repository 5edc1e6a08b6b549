"""What a run says about the vault before it reads a session: a state file it cannot use,
temporary files an earlier run left that it could not remove, and, when the redaction
rules are new to the vault's notes, the notes whose very names held a secret (renamed; a
dry run says they would be)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import vaultio
from .errors import Problem
from .redact_outputs import redact_state, rename_secret_paths
from .state import STATE_DIR, STATE_FILE

if TYPE_CHECKING:
    from .redact import Redactor
    from .vault import Vault

RENAMED_SECRET = "renamed: its file name held a secret (update links to the old name)"
# (a dry run moves nothing: it lists the note's change at its old name, redacted)
RENAMED_SECRET_DRY = "would be renamed: its file name holds a secret (update links to the old name)"
TEMP_LEFT = (
    "a temporary file an earlier run left here could not be removed (is its folder "
    "read-only?): each run tries again, or delete it yourself (it holds a note's text)"
)
STATE_ANEW, STATE_ANEW_DRY = "this run writes it anew", "a run without --dry-run writes it anew"


def vault_notices(vault: Vault, redactor: Redactor | None, rerender: bool) -> list[Problem]:
    """The warnings a run starts with; ``rerender``: templates, settings or rules changed
    since the notes were written (notes written before redaction, or with other rules)."""
    notices = []
    if vault.state.unreadable:
        anew = STATE_ANEW_DRY if vault.dry_run else STATE_ANEW
        why = (f"could not be used: {vault.state.unreadable}; every source is read again "
               f"and each note found by its session id, so nothing is lost ({anew})")  # fmt: skip
        notices.append(Problem(f"{STATE_DIR}/{STATE_FILE}", why))
    # (what the sweep at the start of this run could not remove; a dry run sweeps nothing)
    notices += [Problem(path, TEMP_LEFT) for path in vaultio.left_behind]
    if redactor and rerender:
        redact_state(vault.state, redactor)
        why = RENAMED_SECRET_DRY if vault.dry_run else RENAMED_SECRET
        notices += [Problem(path, why) for path in rename_secret_paths(vault, redactor)]
    return notices
