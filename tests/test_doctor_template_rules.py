"""``doctor`` reads a person's templates with the redaction rules the export reads them
with, the configuration's ``[redact] extra`` included: what it says of a template (an error
met on the sample session, a line the lint quotes) holds no secret of such a rule, as the
export's own messages hold none. The key here is built at test time (none is real)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import EXAMPLES_HOME
from typer.testing import CliRunner

from exporter.cli import app

runner = CliRunner()
KEY = "acme" + "_" + "0123456789abcdef" * 2  # (matched by the config's rule only)
RULE = '{ id = "acme-key", pattern = "acme_[0-9a-f]{32}", keywords = ["acme_"] }'


def _vault(tmp_path: Path, template: str, redact: str = "") -> Path:
    vault = tmp_path / "v"
    (vault / ".ccexport" / "templates").mkdir(parents=True)
    (vault / ".ccexport" / "config.toml").write_text(f"[redact]\n{redact}extra = [{RULE}]\n")
    (vault / ".ccexport" / "templates" / "session.md.j2").write_text(template)
    return vault


def _doctor(vault: Path) -> list[str]:
    args = ["doctor", "--vault", str(vault), "--home", str(EXAMPLES_HOME), "--json"]
    result = runner.invoke(app, args)
    return [c["message"] for c in json.loads(result.stdout)["checks"]]


def _export(vault: Path) -> str:
    args = ["--vault", str(vault), "--home", str(EXAMPLES_HOME), "--source", "aider"]
    return runner.invoke(app, args).stderr


def test_doctors_sample_render_uses_the_configs_extra_rules(tmp_path):
    vault = _vault(tmp_path, f'# {{{{ title | inline }}}}\n{{{{ title["{KEY}"] }}}}\n')
    said = _doctor(vault)
    errors = [m for m in said if "met on a sample session" in m]
    assert errors and "'[REDACTED:acme-key]'" in errors[0]  # (as the export says it)
    assert "'[REDACTED:acme-key]'" in _export(vault)
    assert not [m for m in said if KEY in m]


def test_doctors_lint_quotes_a_template_as_the_run_reads_it(tmp_path):
    vault = _vault(tmp_path, f'# {{{{ title | inline }}}}\n{{{{ turns["{KEY}"].text }}}}\n')
    said = _doctor(vault)
    assert [m for m in said if "[REDACTED:acme-key]'].text unescaped" in m]
    assert not [m for m in said if KEY in m]


def test_with_redaction_off_doctor_reads_the_template_as_the_export_does(tmp_path):
    builtin_shaped = "gh" + "p_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    template = f'# {{{{ title | inline }}}}\n{{{{ title["{builtin_shaped}"] }}}}\n'
    vault = _vault(tmp_path, template, redact="enabled = false\n")
    errors = [m for m in _doctor(vault) if "met on a sample session" in m]
    assert errors and f"'{builtin_shaped}'" in errors[0]
    assert f"'{builtin_shaped}'" in _export(vault)
