"""A match around an earlier placeholder (review47 H1): a private key whose BEGIN and END
lines hold a placeholder between them (a key cut across two messages with another secret
in between, or a ``--dry-run --diff`` whose new note's ``+[REDACTED:private-key]`` line falls
between the old note's key lines) loses every line, not none. The keys are random
characters made at test time; none is real."""

from __future__ import annotations

import random
import re
import string
from datetime import UTC
from pathlib import Path

from codex_builder import CodexRollout
from hypothesis import given, settings
from hypothesis import strategies as st

from exporter.export import ExportOptions, run_export
from exporter.redact import redact_text

_B64 = string.ascii_letters + string.digits + "+/"
_rng = random.Random(20261207)
BEGIN, END = "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----"


def _line(n: int = 64, rng: random.Random = _rng) -> str:
    return "".join(rng.choice(_B64) for _ in range(n))


def _key(lines: list[str]) -> list[str]:
    return [BEGIN, "MIIEpAIBAAKCAQEA" + lines[0][16:], *lines[1:], END]


def test_a_key_with_a_placeholder_between_its_lines_loses_every_line():
    key = _key([_line(), _line()])
    text = "\n".join([*key[:2], "see [REDACTED:github-pat] here", *key[2:]])
    out = redact_text(text)
    assert "[REDACTED:github-pat]" in out and "[REDACTED:private-key]" in out
    for line in key:
        assert line not in out


def test_a_placeholder_already_whole_in_a_key_keeps_its_name():
    key = _key([_line(), _line(), _line()])
    text = "\n".join([*key[:2], "[REDACTED:private-key]", *key[2:]])
    out = redact_text(text)
    assert all(line not in out for line in key)
    assert set(re.findall(r"\[REDACTED:[\w.-]+\]", out)) == {"[REDACTED:private-key]"}


_PLACEHOLDERS = st.sampled_from(
    ["[REDACTED:github-pat]", "[REDACTED:private-key]", "[REDACTED:aws-access-key-id]"]
)


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    body=st.integers(1, 6),
    inserts=st.lists(
        st.tuples(st.integers(0, 100), st.integers(0, 70), _PLACEHOLDERS, st.booleans()),
        min_size=1,
        max_size=4,
    ),
)
def test_no_line_of_a_key_survives_whatever_placeholders_fall_inside_it(seed, body, inserts):
    rng = random.Random(seed)
    key = _key([_line(64, rng) for _ in range(body)] + [_line(rng.randint(4, 40), rng) + "=="])
    lines = list(key)
    for where, col, placeholder, own_line in inserts:
        at = 1 + where % (len(lines) - 1)  # after BEGIN, up to before END
        if own_line:
            lines.insert(at, placeholder)
        else:  # inside a body line: it cuts the line in two
            line = lines[at]
            if line.startswith("-----"):
                lines.insert(at, placeholder)
            else:
                c = col % (len(line) + 1)
                lines[at] = line[:c] + placeholder + line[c:]
    out = redact_text("\n".join(lines))
    bare = re.sub(r"\[REDACTED:[\w.-]+\]", " ", out)
    assert "BEGIN" not in bare and "END" not in bare
    assert not re.search(r"[A-Za-z0-9+/]{12,}", bare), out
    for line in key:
        assert line not in out


def _codex_home(home: Path, key: list[str], token: str) -> None:
    r = CodexRollout("019a0000-0000-7000-8000-0000000c0ded", "/home/dev/work/api")
    r.user("use this key:\n" + "\n".join(key[:2]))
    r.user(f"and the token {token}")
    r.user("\n".join(key[2:]))
    r.assistant("Done")
    r.write(home / ".codex")


def test_a_dry_run_diff_never_shows_an_old_keys_lines(tmp_path):
    key = _key([_line(), _line(), _line()])
    token = "gh" + "p_" + "".join(_rng.choice(string.ascii_letters) for _ in range(36))
    home, vault = tmp_path / "home", tmp_path / "vault"
    _codex_home(home, key, token)

    def export(**kw):
        return run_export(ExportOptions(vault=vault, home=home, timezone=UTC, **kw))

    export(redact=False)
    dry = export(dry_run=True, diff=True)
    diffs = "\n".join(c.diff for c in dry.changes)
    assert "REDACTED:private-key" in diffs
    for secret in (*key[1:-1], token):  # (an armour line alone is no secret: the title has it)
        assert secret not in diffs
