"""Printing an export report for people: a summary, then what went wrong."""

from __future__ import annotations

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
    for problem in report.problems:
        if problem.severity == "error" or not quiet:
            typer.echo(f"{problem.severity}: {problem}", err=True)
