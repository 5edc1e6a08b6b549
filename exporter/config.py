"""Settings: defaults, then ``~/.config/ccexport/config.toml``, then the vault's
``.ccexport/config.toml``, then command-line flags (each wins over the one before). The
vault itself comes from ``--vault``, else ``CCEXPORT_VAULT``, else the user's file.

Every value remembers where it came from (``ccexport config show``, which prints it as TOML
writes it). An unknown key or a bad value, also one inside a table, is a ConfigError naming
the file, the key (``index.dataview``) and the line that sets it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from .config_file import Failure, at_line, key_name, load_file, toml_value
from .config_tables import (
    apply_frontmatter,
    apply_properties,
    apply_redact,
    check_table,
    misplaced,
)
from .config_values import (
    VIEW_CHOICES,
    byte_size,
    did_you_mean,
    full_path,
    parse_since,
    relative_path,
    string_value,
    unknown_zone,
    view_setting,
)
from .errors import ConfigError
from .vaultpaths import assistant_folder, in_assistant, too_high

VAULT_CONFIG = Path(".ccexport") / "config.toml"
LAYOUT_FIELDS = {"source", "project", "year", "month"}
SHOWN_KEYS = (
    "vault", "folder", "layout", "attachments", "sources", "paths", "since", "project",
    "timezone", "templates", "frontmatter_add", "frontmatter_drop", "project_tag", "index",
    "index_dataview", "note_max_bytes", "redact", "redact_extra", "redact_allow",
    "prices", "daily_notes", "daily_folder", "daily_format",
    "tool_output", "tool_output_lines", "thinking", "tools", "todo_as_checklist",
)  # fmt: skip
# A setting kept in a table of config.toml, as the file spells it: ``config show`` prints
# that spelling, so a key copied from it into the file is one the file takes.
WRITTEN_AS = {
    "frontmatter_add": "frontmatter.add",
    "frontmatter_drop": "frontmatter.drop",
    "project_tag": "frontmatter.project_tag",
    "index": "index.enabled",
    "index_dataview": "index.dataview",
    "redact_extra": "redact.extra",
    "redact_allow": "redact.allow",
    "daily_folder": "daily.folder",
    "daily_format": "daily.format",
}

# The settings a table's keys set (``[index] dataview`` -> ``index_dataview``): each has the
# origin of the file that sets that key, not of one that sets another key of the table.
TABLE_FIELDS = {
    "frontmatter": {
        "add": "frontmatter_add",
        "drop": "frontmatter_drop",
        "project_tag": "project_tag",
    },
    "index": {"enabled": "index", "dataview": "index_dataview"},
    "redact": {"enabled": "redact", "extra": "redact_extra", "allow": "redact_allow"},
    "daily": {"enabled": "daily_notes", "folder": "daily_folder", "format": "daily_format"},
}
# The settings two files add up (a table's keys, a list's items): ``config show`` names the
# file each key came from, not the last file that added one for them all.
ADDED_UP = {
    "paths", "prices", "frontmatter_add", "frontmatter_drop", "redact_allow", "redact_extra",
}  # fmt: skip


@dataclass
class Settings:
    vault: Path | None = None
    folder: str = "AI Sessions"
    layout: str = "{source}/{project}"
    attachments: str = "attachments/ccexport"
    sources: list[str] | None = None
    paths: dict[str, list[Path]] = field(default_factory=dict)
    since: datetime | None = None
    since_written: Any = None  # "90d" as the file or flag gave it: `config show` prints this
    project: str | None = None
    timezone: str | None = None
    templates: Path | None = None
    frontmatter_add: dict[str, str] = field(default_factory=dict)
    frontmatter_drop: list[str] = field(default_factory=list)
    project_tag: str | bool = "project"  # each note's tag is project_tag/<project>; false: none
    index: bool = True
    index_dataview: bool = False
    note_max_bytes: int = 4 * 1024 * 1024  # a longer session continues in part notes
    redact: bool = True
    redact_extra: list[Any] = field(default_factory=list)  # redact_rules.Rule, ours run after
    redact_allow: list[str] = field(default_factory=list)
    prices: dict[str, dict[str, float]] = field(default_factory=dict)  # model pattern -> USD/M
    daily_notes: bool | None = None  # None: when the vault has the Daily notes plugin set up
    daily_folder: str | None = None  # None: the plugin's
    daily_format: str | None = None  # None: the plugin's, else YYYY-MM-DD
    tool_output: str = "full"  # full | head (the first tool_output_lines lines) | none
    tool_output_lines: int = 20
    thinking: str = "folded"  # folded | shown | hidden
    tools: str = "full"  # full | summary (one line per call) | hidden
    todo_as_checklist: bool = False  # plan/to-do tool calls as a "- [ ]" list
    origin: dict[str, str] = field(default_factory=dict)
    # ADDED_UP setting -> its key (a rule's id, a list's item) -> where that came from
    entry_origin: dict[str, dict[str, str]] = field(default_factory=dict)

    def shown(self) -> list[tuple[str, str, str]]:
        """(key as config.toml spells it, value, where it came from) for ``config show``."""
        rows = []
        for key in SHOWN_KEYS:
            value = getattr(self, key)
            if key == "since" and self.since_written is not None:
                # As written: "90d" counts back from each run, and copied into the file it
                # still does; the date it gives now would stay that date.
                value = self.since_written
            elif key == "redact_extra":  # each rule as the file writes it
                value = [_rule_table(rule) for rule in value]
            elif key == "templates" and value is not None:  # full paths: they read alike
                value = os.path.abspath(value)  # from any folder (a relative --vault's too)
            elif key == "paths":
                value = {name: [os.path.abspath(p) for p in found] for name, found in value.items()}
            origin = self.origin.get(key, "default")
            if key == "timezone" and value is None and self.vault is not None:
                # Not set: the notes are dated in the zone the vault keeps, once it keeps one.
                value, origin = _vault_zone(self.vault) or (value, origin)
            entries = self.entry_origin.get(key, {})
            if len(set(entries.values())) > 1:  # added up from both files
                if isinstance(value, dict):  # each key on its own row, from its own file
                    path = tuple(WRITTEN_AS.get(key, key).split("."))
                    rows.extend(
                        (key_name((*path, str(name))), toml_value(entry), entries[str(name)])
                        for name, entry in value.items()
                    )
                    continue
                origin = " and ".join(dict.fromkeys(entries.values()))  # a list's items
            rows.append(
                (
                    WRITTEN_AS.get(key, key),
                    "" if value in (None, [], {}) else toml_value(value),
                    origin,
                )
            )
        return rows


def _vault_zone(vault: Path) -> tuple[str, str] | None:
    """The zone the vault's ``.ccexport/zone`` keeps, and that file as its origin, when it
    names a zone known here (else the export takes this machine's, and says so)."""
    from .zones import ZONE_FILE, kept_zone, named_zone

    kept = kept_zone(vault)
    if kept is None or named_zone(kept) is None:
        return None
    return kept, f"the vault's zone file ({vault / ZONE_FILE})"


def _rule_table(rule: Any) -> dict[str, Any]:
    """A ``[redact] extra`` rule as config.toml writes it: ``{ id = "…", pattern = "…" }``."""
    table: dict[str, Any] = {"id": rule.id, "pattern": rule.pattern}
    if rule.keywords:
        table["keywords"] = list(rule.keywords)
    if rule.entropy is not None:
        table["entropy"] = rule.entropy
    return table


def user_config_path() -> Path:
    import platformdirs  # imported only when configuration is read

    return Path(platformdirs.user_config_dir("ccexport")) / "config.toml"


def config_files(settings: Settings) -> list[tuple[str, Path | None]]:
    """The config files the settings were read from, or would be once written: the user's,
    and the vault's (None: no vault given), each named as ``config show`` names it."""
    vault = settings.vault.expanduser() / VAULT_CONFIG if settings.vault is not None else None
    return [("user config", user_config_path()), ("vault config", vault)]


def no_vault_message(*ways: str) -> str:
    """What every command says when it has no vault: each way to give one, the user's config
    file by its path (a newcomer does not know where "the config" is)."""
    ways = (*(ways or ("--vault DIR",)), "set CCEXPORT_VAULT")
    return (
        f'no vault given: use {", ".join(ways)}, or put vault = "~/Notes" in {user_config_path()}'
    )


def required_vault(settings: Settings, *ways: str) -> Path:
    """The vault the settings name; without one, a ConfigError saying how to give it."""
    if settings.vault is None:
        raise ConfigError(no_vault_message(*ways))
    return settings.vault


def resolve(cli: dict[str, Any], env: dict[str, str] | None = None) -> Settings:
    """The effective settings. ``cli`` holds the flags given (None for those not given)."""
    env = dict(os.environ) if env is None else env
    settings = Settings()
    user_file = user_config_path()
    user, text = load_file(user_file)
    _apply(settings, user, f"user config ({user_file})", allow_vault=True, base=user_file.parent,
           file_text=text)  # fmt: skip
    if env.get("CCEXPORT_VAULT"):
        settings.vault = Path(env["CCEXPORT_VAULT"]).expanduser()
        settings.origin["vault"] = "CCEXPORT_VAULT"
    if cli.get("vault"):
        settings.vault = Path(cli["vault"]).expanduser()
        settings.origin["vault"] = "--vault"
    if settings.vault is not None:
        problem = vault_path_problem(settings.vault)
        if problem:
            raise ConfigError(problem)
        vault_file = settings.vault / VAULT_CONFIG
        values, text = load_file(vault_file)
        if "vault" in values:
            raise ConfigError(
                f"{vault_file}{at_line(text, 'vault')}: 'vault' cannot be set inside the "
                "vault's own config"
            )
        _apply(
            settings, values, f"vault config ({vault_file})", allow_vault=False,
            base=settings.vault, file_text=text,
        )  # fmt: skip
        if not cli.get("templates") and settings.templates is None:
            own = settings.vault / ".ccexport" / "templates"
            if own.is_dir():
                settings.templates = own
                settings.origin["templates"] = "the vault's .ccexport/templates"
    flags = {k: v for k, v in cli.items() if v not in (None, [], ()) and k != "vault"}
    _apply(settings, flags, "command line", allow_vault=False, base=Path.cwd(), flags=True)
    if "tool_output_lines" in flags and settings.tool_output != "head" and not settings.templates:
        # (it would change nothing in the notes but render them all again, twice: review50 L3;
        # a template of your own may read it, so there it is yours to give)
        raise ConfigError(
            f"--tool-output-lines keeps lines only with --tool-output head (tool_output is "
            f'{settings.tool_output!r} here): give both, or set tool_output = "head"'
        )
    if settings.vault is not None and not (settings.vault / ".ccexport").is_dir():
        # (a vault made there already: each run warns, ``runstart.open_vault``)
        if held := assistant_folder(settings.vault, None, settings.paths):
            where = in_assistant(*held)
            raise ConfigError(f"the vault {settings.vault} {where}; choose a vault outside it")
    return settings


def vault_path_problem(vault: Path) -> str | None:
    """Why ``vault`` can never be a vault (it, or a folder above it, is a file; it is far
    above any notes: ``vaultpaths.too_high``), or None."""
    if vault.exists() and not vault.is_dir():
        return f"the vault {vault} is a file, not a folder; give a folder to --vault"
    above = next((p for p in vault.parents if p.exists()), None)
    if above is not None and not above.is_dir():  # else "config.toml: Not a directory"
        return f"the vault {vault} cannot be made: {above} is a file, not a folder"
    return too_high(vault)  # (``/``, above the home folder: every note of the disk its own)


def without_files(cli: dict[str, Any], env: dict[str, str] | None = None) -> Settings:
    """The settings when a config file is broken: defaults, the vault from ``--vault`` or
    ``CCEXPORT_VAULT``, and the flags (checked: a bad flag is still a ConfigError). For
    ``ccexport doctor``, which names the broken file and checks everything else."""
    env = dict(os.environ) if env is None else env
    settings = Settings()
    vault = cli.get("vault") or env.get("CCEXPORT_VAULT")
    if vault:
        settings.vault = Path(vault).expanduser()
    flags = {k: v for k, v in cli.items() if v not in (None, [], ()) and k != "vault"}
    _apply(settings, flags, "command line", allow_vault=False, base=Path.cwd(), flags=True)
    return settings


def _apply(
    s: Settings,
    values: dict[str, Any],
    where: str,
    *,
    allow_vault: bool,
    base: Path,
    flags: bool = False,
    file_text: str = "",
) -> None:
    """Check and copy ``values`` into ``s``; every problem names ``where``, the key and, when
    ``file_text`` shows it, its line."""
    from .sourcenames import SOURCES  # the registered names, without importing the adapters

    names = list(SOURCES)
    fail = Failure(where, file_text, flags=flags)

    for key, value in values.items():
        if key == "vault" and allow_vault:
            s.vault = Path(string_value(key, value, fail)).expanduser()
            if not s.vault.is_absolute():  # cron and systemd start in another folder
                raise fail(key, "must be a full path or start with ~ (a relative one would "
                                "change with the folder the command runs in)")  # fmt: skip
        elif key in ("folder", "attachments"):
            text = string_value(key, value, fail)
            if full_path(text):  # it was moved into the vault without a word
                raise fail(key, f"must be a folder inside the vault, given relative to it, "
                                f"not a full path: {text!r}")  # fmt: skip
            text = text.strip("/")
            if not text or ".." in Path(text.replace("\\", "/")).parts:
                raise fail(key, "must be a folder inside the vault")
            setattr(s, key, text)
        elif key == "layout":
            text = string_value(key, value, fail)
            used = set(re.findall(r"{(\w*)}", text))
            if used - LAYOUT_FIELDS:
                raise fail(key, f"uses unknown fields {sorted(used - LAYOUT_FIELDS)}; "
                                f"choose from {sorted(LAYOUT_FIELDS)}")  # fmt: skip
            s.layout = text
        elif key == "sources":
            chosen = [value] if isinstance(value, str) else value
            if not isinstance(chosen, list) or not all(isinstance(v, str) for v in chosen):
                raise fail(key, "must be a list of source names")
            unknown = [v for v in chosen if v not in names]
            if unknown:
                raise fail(key, _unknown_sources(unknown, names, flags))
            s.sources = list(chosen)
        elif key == "paths":
            takes = f"must map source names ({', '.join(names)}) to folders"
            if not isinstance(value, dict):
                raise fail(key, takes)
            for name in value:
                if name not in names:
                    near = did_you_mean(name.strip().lower().replace("_", "-"), names)
                    why = misplaced((key,), name, names, fail.text)
                    raise fail((key, name), why or f"is not a source{near}; 'paths' {takes}")
            for name, folders in value.items():
                folders = [folders] if isinstance(folders, str) else folders
                if not isinstance(folders, list) or not all(isinstance(f, str) for f in folders):
                    raise fail((key, name), "must be a folder or a list of folders")
                s.paths[name] = [relative_path(base, f) for f in folders]
                # (per source: a folder that is not there is named with the file naming it)
                s.origin[f"paths.{name}"] = where
        elif key == "since":
            s.since = parse_since(value if isinstance(value, str) else str(value), fail)
            s.since_written = value
        elif key == "project":
            s.project = string_value(key, value, fail)
        elif key == "timezone":
            text = string_value(key, value, fail)
            if why := unknown_zone(text):
                raise fail(key, why)
            s.timezone = text
        elif key == "templates":
            path = relative_path(base, string_value(key, value, fail))
            if not path.is_dir():
                what = "is a file, not a folder" if path.exists() else "does not exist"
                raise fail(key, f"{what}: {path}")
            s.templates = path
        elif key == "frontmatter":
            apply_frontmatter(s, value, fail)
        elif key == "index":
            takes = "takes 'enabled' and 'dataview' (true or false)"
            check_table(value, (key,), ("enabled", "dataview"), fail, takes)
            for sub, flag in value.items():
                if not isinstance(flag, bool):
                    raise fail(f"index.{sub}", "must be true or false")
            s.index = value.get("enabled", s.index)
            s.index_dataview = value.get("dataview", s.index_dataview)
        elif key == "redact":
            apply_redact(s, value, fail)
        elif key in ("prices", "daily_notes", "daily"):
            apply_properties(s, key, value, fail)
        elif key == "note_max_bytes":
            s.note_max_bytes = byte_size(key, value, fail)
        elif key in VIEW_CHOICES or key in ("tool_output_lines", "todo_as_checklist"):
            setattr(s, key, view_setting(key, value, fail))
        elif key in WRITTEN_AS:  # config show's name before it spelled the file's
            table, sub = WRITTEN_AS[key].split(".")
            raise fail(key, f"goes in the [{table}] table, as `{sub} = …`")
        else:
            raise fail(key, _unknown_setting(key))
        if key in TABLE_FIELDS and isinstance(value, dict):
            for sub in value:  # each setting the table sets, not those it leaves out
                s.origin[TABLE_FIELDS[key][sub]] = where
                _note_entries(s, TABLE_FIELDS[key][sub], value[sub], where)
        else:
            s.origin[key] = where
            _note_entries(s, key, value, where)


def _note_entries(s: Settings, setting: str, given: Any, where: str) -> None:
    """Remember ``where`` gave each entry of an ADDED_UP setting (a later file's entry of the
    same key replaces the earlier one, as its value does)."""
    if setting not in ADDED_UP:
        return
    entries = s.entry_origin.setdefault(setting, {})
    for entry in given:
        entries[str(entry.get("id") if isinstance(entry, dict) else entry)] = where


def setting_names() -> list[str]:
    """The keys a settings file takes at its top level (a table's name among them)."""
    return list(dict.fromkeys(WRITTEN_AS.get(k, k).split(".")[0] for k in SHOWN_KEYS))


def _unknown_setting(key: str) -> str:
    """``is not a setting ccexport knows (did you mean folder?); the settings: …``: every
    key the file takes, named here (``config show`` reads the same file, and would stop
    at the same key)."""
    keys = setting_names()
    return (
        f"is not a setting ccexport knows{did_you_mean(key, keys)}; the settings: {', '.join(keys)}"
    )


def _unknown_sources(unknown: list[str], names: list[str], flags: bool) -> str:
    """``names 'claude', not a source (did you mean claude-code?); choose from …``: the
    names as typed, the nearest source's name, and two names given as one."""
    from difflib import get_close_matches

    hints = []
    for name in unknown:
        parts = [p.strip() for p in name.split(",") if p.strip()]
        if len(parts) > 1 and all(p in names for p in parts):
            hints.append(
                "one name per --source: " + " ".join(f"--source {p}" for p in parts)
                if flags
                else "a list: sources = [" + ", ".join(f'"{p}"' for p in parts) + "]"
            )
            continue
        near = get_close_matches(name.strip().lower().replace("_", "-"), names, n=1, cutoff=0.6)
        if near:
            which = f"{name!r}: " if len(unknown) > 1 else ""
            hints.append(f"{which}did you mean {near[0]}?")
    quoted = ", ".join(repr(name) for name in unknown)
    what = "not a source" if len(unknown) == 1 else "not sources"
    hint = f" ({'; '.join(hints)})" if hints else ""
    return f"names {quoted}, {what}{hint}; choose from {', '.join(names)}"
