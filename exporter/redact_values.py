"""Secrets in JSON-like values (a tool's input, a session's extra facts): each string is
redacted as text, and judged by the name its place gives it too (``{"password": "…"}``,
``["--password", "…"]``, ``{"name": "DB_PASSWORD", "value": "…"}``, a key that holds
secrets above it). A part of ``redact.Redactor``, kept here for its length."""

from __future__ import annotations

import re
import shlex
from collections import Counter
from collections.abc import Mapping
from itertools import islice
from typing import TYPE_CHECKING, Any

from .redact_keynames import bare_key, key_named_only
from .redact_names import PLACEHOLDER, VALUE_KEYS, entry_name, holder_rule, item_name, named_value

if TYPE_CHECKING:
    from collections.abc import Callable

    from .redact_spread import Spread

_Counts = Counter[str] | None  # what a redaction adds its rules' ids to, if anything
# A list that may be a command's words: a program's name first, a few short words.
_PROGRAM = re.compile(r"[\w./+-]{1,100}")
_ARGV_WORDS, _ARGV_WORD = 256, 4096


# A PIN: four to eight digits under a key that names one (``pin``, ``pin_code``, ``simPin``),
# not in text (``pin: 1234`` may pin anything). Not a year or a date (``"pin": "2024"``
# pins a version), nor a GPIO pin's number (``"pin": 17``: fewer digits).
_PIN_NAME = re.compile(r"(?:[A-Za-z]+[_-]|[a-z]+(?=P))?(?:pin|Pin|PIN)(?:[_-]?(?:code|Code|CODE))?")
_PIN = re.compile(r"[0-9]{4,8}")
_DATE = re.compile(r"(?:19|20)[0-9]{2}(?:(?:0[1-9]|1[0-2])(?:0[1-9]|[12][0-9]|3[01]))?")


def _pin(name: str, value: str) -> str | None:
    if _PIN_NAME.fullmatch(name) and _PIN.fullmatch(value) and not _DATE.fullmatch(value):
        return "generic-password"
    return None


def _is_argv(value: Any) -> bool:
    return (
        2 <= len(value) <= _ARGV_WORDS
        and all(type(word) is str and len(word) <= _ARGV_WORD for word in value)
        and _PROGRAM.fullmatch(value[0]) is not None
    )


class ValueRedaction:
    """The walk of a value; the text redaction and the judges come from ``Redactor``."""

    allow: frozenset[str]
    _entropy: dict[str, float | None]
    _judge: Callable[[str, str, str], bool]
    _found: list[tuple[bytes, str]] | None
    _spread: Spread | None

    def text(self, text: str, counts: Counter[str] | None = None) -> str:
        raise NotImplementedError

    def _recurring(self, text: str, counts: Counter[str] | None) -> str:
        raise NotImplementedError

    def value(
        self,
        value: Any,
        counts: Counter[str] | None = None,
        name: str = "",
        under: str | None = None,
    ) -> Any:
        """Strings inside a JSON-like value (a tool's input), redacted; a string under a
        secret-sounding key (``{"password": "…"}``) is judged like an assignment, and so is
        one below a key that holds secrets (``{"credentials": {"prod": {"db": "…"}}}``:
        ``under`` is the rule that key calls for). A password may be a number."""
        if isinstance(value, str):
            redacted = self.text(value, counts)
            if redacted != value or value in self.allow or self._spread is not None:
                return redacted
            rule_id = named_value(name, value, self._entropy) or _pin(name, value)
            if rule_id is None and name and key_named_only(name) and bare_key(name, value):
                rule_id = "generic-secret"  # ``{"APP_KEY": "…"}``: a key by its name's form
            if rule_id is None and under is not None and self._judge(name, value, under):
                rule_id = under
            if rule_id is not None and self._found is not None:
                self._found.append((value.encode("utf-8", "surrogatepass"), rule_id))
        elif isinstance(value, Mapping):
            return self._mapping(value, counts, under)
        elif isinstance(value, list | tuple):
            return self._sequence(value, counts, name, under)
        elif type(value) is int and value >= 1000 and name and self._spread is None:
            if str(value) in self.allow:
                return value
            # a password of digits (six or more), or a PIN
            rule_id = named_value(name, str(value), self._entropy) or _pin(name, str(value))
        else:
            return value
        if rule_id is None:
            return value
        if counts is not None:
            counts[rule_id] += 1
        return PLACEHOLDER.format(rule_id)

    # A value comes back as the very object given when nothing in it changed (``text`` and
    # ``value`` both do so): a tool's input is copied only when it held a secret, not
    # rebuilt and compared at every level of it.

    def _mapping(self, value: Mapping[Any, Any], counts: _Counts, under: str | None) -> Any:
        out: dict[Any, Any] | None = None
        # A name/value pair (``{"name": "DB_PASSWORD", "value": "…"}``): the value is named so.
        named = entry_name(value)
        for i, (key, item) in enumerate(value.items()):
            new_key = self._recurring(key, counts) if isinstance(key, str) else key
            name = named if named and key in VALUE_KEYS else str(key)
            holds = holder_rule(key) if isinstance(key, str) and type(item) is not str else None
            new_item = self.value(item, counts, name, holds or under)
            if out is None:
                if new_key is key and new_item is item:
                    continue
                out = dict(islice(value.items(), i))  # what came before, as it was
            out[new_key] = new_item
        return value if out is None else out

    def _sequence(self, value: Any, counts: _Counts, name: str, under: str | None) -> Any:
        redacted = self._items(value, counts, name, under)
        if self._spread is None and _is_argv(redacted):
            return self._as_command(redacted, counts)
        return redacted

    def _as_command(self, argv: Any, counts: _Counts) -> Any:
        """A command given as a list of its words (``["docker", "login", "-p", "…"]``,
        ``["mysql", "-p…"]``), judged as the same command written out: a word's secret
        may be known only by the word before it, or by the command."""
        outer, self._found = self._found, []
        try:
            self.text(shlex.join(argv))
            found = self._found
        finally:
            self._found = outer
        secrets = {s.decode("utf-8", "replace"): rule_id for s, rule_id in found}
        if not secrets:
            return argv
        out = list(argv)
        for i, word in enumerate(out):
            for secret, rule_id in secrets.items():
                if secret and secret in word:
                    word = word.replace(secret, PLACEHOLDER.format(rule_id))
                    if counts is not None:
                        counts[rule_id] += 1
                    if outer is not None:
                        outer.append((secret.encode("utf-8", "surrogatepass"), rule_id))
            out[i] = word
        return argv if out == list(argv) else type(argv)(out)

    def _items(self, value: Any, counts: _Counts, name: str, under: str | None) -> Any:
        out: list[Any] | None = None
        for i, item in enumerate(value):
            new_item = self.value(item, counts, item_name(value, i) or name, under)
            if out is None:
                if new_item is item:
                    continue
                out = list(value[:i])
            out.append(new_item)
        return value if out is None else type(value)(out)
