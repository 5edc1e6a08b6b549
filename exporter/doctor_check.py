"""One line of ``ccexport doctor``: its area, whether it is ok, needs attention or is
information, and what it says (``doctor``, ``doctor_render``, ``doctor_templates``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Status = Literal["ok", "attention", "info"]


@dataclass(frozen=True, slots=True)
class Check:
    area: str  # "Sources", "Vault", "Schedule", "Configuration", "Templates"
    status: Status
    message: str
    # What the check lists, one object each, for --json (the message shows the first few).
    files: tuple[dict[str, Any], ...] = ()

    def as_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = {"area": self.area, "status": self.status, "message": self.message}
        if self.files:
            found["files"] = list(self.files)
        return found
