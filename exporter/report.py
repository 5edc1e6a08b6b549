"""Printing an export report for people: a summary, then what went wrong."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import typer

from .export import ExportReport
from .vault import Action

_VERB = {
    Action.CREATED: "create",
    Action.RENAMED: "create (renamed)",
    Action.UPDATED: "update",
    Action.CONFLICT: "update (conflict)",
    Action.UNCHANGED: "leave alone",
    Action.FAILED: "fail",
}


def summary_line(report: ExportReport) -> str:
    parts = [
        f"{report.total('found')} sessions found",
        f"{report.total('created')} created",
        f"{report.total('updated')} updated",
        f"{report.total('unchanged') + report.total('skipped')} unchanged",
    ]
    for name, label in (
        ("conflicts", "conflicts"),
        ("failed", "failed"),
        ("empty", "empty sources"),
    ):
        if report.total(name):
            parts.append(f"{report.total(name)} {label}")
    prefix = "Dry run, nothing written: " if report.dry_run else ""
    return prefix + ", ".join(parts)


def append_log(path: Path, report: ExportReport | None, code: int, error: str = "") -> None:
    """One entry per run in the nightly log: when, how it ended, and what went wrong."""
    stamp = datetime.now().astimezone().isoformat(timespec="seconds")
    lines = [f"[{stamp}] exit {code}: {summary_line(report) if report else error}"]
    if report:
        lines += [f"  {p.severity}: {p}" for p in report.problems if p.severity == "error"]
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def print_report(report: ExportReport, *, quiet: bool = False) -> None:
    if report.dry_run and not quiet:
        for change in report.changes:
            typer.echo(f"would {_VERB[change.action]}: {change.relpath}")
            if change.diff:
                typer.echo(change.diff)
    if not quiet:
        typer.echo(summary_line(report))
        if len(report.per_source) > 1:
            for source, counts in report.per_source.items():
                typer.echo(
                    f"  {source}: {counts.found} found, {counts.created} created, "
                    f"{counts.updated} updated, {counts.unchanged + counts.skipped} unchanged, "
                    f"{counts.failed} failed"
                )
    for change in report.changes:
        if change.action is Action.CONFLICT:
            typer.echo(f"conflict: {change.relpath}: {change.message}", err=True)
    # One line per distinct problem: a template mistake hit by 300 notes is one line.
    seen: dict[str, int] = {}
    for problem in report.problems:
        if problem.severity == "error" or not quiet:
            line = f"{problem.severity}: {problem}"
            seen[line] = seen.get(line, 0) + 1
    for line, count in seen.items():
        typer.echo(line if count == 1 else f"{line} ({count} times)", err=True)
