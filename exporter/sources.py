"""``ccexport sources``: what each adapter finds on this machine, without parsing it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .adapters import SourceContext, select_adapters


@dataclass(frozen=True, slots=True)
class SourceRow:
    source: str
    label: str
    path: Path
    exists: bool
    sessions: int
    size: int

    def as_dict(self) -> dict[str, object]:
        return {
            "source": self.source,
            "label": self.label,
            "path": str(self.path),
            "exists": self.exists,
            "sessions": self.sessions,
            "size": self.size,
        }


def list_sources(home: Path | None, names: list[str] | None = None) -> list[SourceRow]:
    """One row per folder where an adapter found something (or, if it found nothing, one
    row naming where it looked first): sessions and bytes there."""
    ctx = SourceContext.for_home(home)
    rows = []
    for adapter in select_adapters(names):
        refs = list(adapter.discover(ctx))
        count = getattr(adapter, "count_sessions", None)
        roots = [r for r in adapter.roots(ctx) if r.exists()] or adapter.roots(ctx)[:1]
        for root in roots:
            mine = [r for r in refs if _under(r.main.path, root)]
            sessions = sum(count(r) for r in mine) if count else len(mine)
            rows.append(
                SourceRow(
                    adapter.name,
                    adapter.label,
                    root,
                    root.exists(),
                    sessions,
                    sum(r.size for r in mine),
                )
            )
    return rows


def _under(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True
