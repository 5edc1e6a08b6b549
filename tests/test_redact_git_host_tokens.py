"""Azure DevOps personal access tokens and a token given as a URL's user alone on a git
host (review47 M5). Every token is random characters made at test time; none is real."""

from __future__ import annotations

import random
import string

import pytest

from exporter.redact import redact_text

_rng = random.Random(20261211)
ADO = "".join(_rng.choice(string.ascii_lowercase + "234567") for _ in range(51)) + "7"
TOKEN = "".join(_rng.choice(string.ascii_letters + string.digits) for _ in range(39)) + "4"


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f"AZURE_DEVOPS_EXT_PAT={ADO}", ADO),
        (f"ADO_PAT: {ADO}", ADO),
        (f"PAT={ADO}", ADO),
        (f'GITHUB_PAT="{TOKEN}"', TOKEN),
        (f"git clone https://{ADO}@dev.azure.com/org/proj/_git/repo", ADO),
        (f"git clone https://{ADO}@org.visualstudio.com/proj/_git/repo", ADO),
        (f"git remote set-url origin https://{TOKEN}@github.com/a/b.git", TOKEN),
        (f"git config --global url.https://{TOKEN}@github.com/.insteadOf https://github.com/",
         TOKEN),
        (f"https://{TOKEN}@gitlab.com/group/project.git", TOKEN),
    ],
)  # fmt: skip
def test_a_pat_or_a_urls_token_user_is_redacted(text, secret):
    out = redact_text(text)
    assert secret not in out and "[REDACTED:" in out


@pytest.mark.parametrize(
    "text",
    [
        "https://octocat@github.com/octocat/hello.git",
        "https://john-smith-the-developer@github.com/a/b",
        "https://build-agent-2024@dev.azure.com/org",
        "git@github.com:a/b.git",
        "git@ssh.dev.azure.com:v3/org/proj/repo",
        f"https://{TOKEN}@example.com/a",  # (not a git host: a URL's user may be anything)
        "export PATH=/usr/local/bin:$PATH",
        "PATTERN=abc",
        "the PAT is in the vault",
        "PAT: see the wiki page for it",
        f"SPAT={ADO}",
    ],
)
def test_what_is_no_token_stays(text):
    assert redact_text(text) == text
