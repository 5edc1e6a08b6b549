"""The redaction engine and its rule table: every rule catches a token of its format, and
what is not a secret (ids, hashes, images, prose, code) stays exactly as it was.

Every key here is generated at test time from random characters in the right format: none
is real, and none is written out in the repository.
"""

from __future__ import annotations

import base64
import hashlib
import random
import string
import uuid
from collections import Counter
from collections.abc import Callable
from unittest import mock

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from exporter import redact_keywords
from exporter.redact import Redactor, redact_text, redactor
from exporter.redact_names import entry_name, holder_rule, item_name
from exporter.redact_rules import RULES, Rule
from exporter.redact_values import _is_argv

UPPER, LOWER, DIGITS = string.ascii_uppercase, string.ascii_lowercase, string.digits
ALNUM = UPPER + LOWER + DIGITS
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


class Gen:
    """Random strings from a fixed seed: the same keys on every run."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def __call__(self, alphabet: str, n: int) -> str:
        # Ends on a letter or digit, so the token ends where a word boundary says it does.
        body = "".join(self.rng.choice(alphabet) for _ in range(n - 1))
        return body + self.rng.choice([c for c in alphabet if c.isalnum()])

    def uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))


def _pem(r: Gen) -> tuple[str, str]:
    body = "\n".join(r(B64, 64) for _ in range(4))
    kind = "RSA PRIVATE KEY"
    return f"-----BEGIN {kind}-----\n{body}\n-----END {kind}-----", body


# rule id -> (text holding a secret, the secret), built from parts so no literal key exists.
SAMPLES: dict[str, Callable[[Gen], tuple[str, str]]] = {
    "private-key": _pem,
    "age-secret-key": lambda r: (s := "AGE-SECRET-KEY-1" + r("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58), s),
    "jwt": lambda r: (s := f"eyJ{r(URLSAFE, 20)}.eyJ{r(URLSAFE, 40)}.{r(URLSAFE, 43)}", s),
    "anthropic-admin-key": lambda r: (s := "sk-ant-" + "admin01-" + r(URLSAFE, 93) + "AA", s),
    "anthropic-api-key": lambda r: (s := "sk-ant-" + "api03-" + r(URLSAFE, 93) + "AA", s),
    "openrouter-api-key": lambda r: (s := "sk-or-" + "v1-" + r(HEX, 64), s),
    "openai-api-key": lambda r: (s := "sk-" + "proj-" + r(URLSAFE, 74) + "T3Blbk" + "FJ" + r(URLSAFE, 74), s),
    "groq-api-key": lambda r: (s := "gs" + "k_" + r(ALNUM, 52), s),
    "xai-api-key": lambda r: (s := "xa" + "i-" + r(ALNUM, 80), s),
    "huggingface-token": lambda r: (s := "h" + "f_" + r(UPPER + LOWER, 34), s),
    "replicate-api-token": lambda r: (s := "r8" + "_" + r(ALNUM, 37), s),
    "perplexity-api-key": lambda r: (s := "pplx" + "-" + r(ALNUM, 48), s),
    "cerebras-api-key": lambda r: (s := "csk" + "-" + r(LOWER + DIGITS, 48), s),
    "fireworks-api-key": lambda r: (s := "fw" + "_" + r(ALNUM, 24), s),
    "langsmith-api-key": lambda r: (s := "lsv2" + "_pt_" + r(HEX, 32) + "_" + r(HEX, 10), s),
    "langfuse-secret-key": lambda r: (s := "sk-" + "lf-" + r.uuid(), s),
    "pinecone-api-key": lambda r: (s := "pcsk" + "_" + r(ALNUM, 70), s),
    "tavily-api-key": lambda r: (s := "tvly" + "-" + r(ALNUM, 32), s),
    "elevenlabs-api-key": lambda r: (s := "sk" + "_" + r(HEX, 48), s),
    "sk-api-key": lambda r: (s := "s" + "k-" + r(ALNUM, 48), s),
    "aws-access-key": lambda r: (s := "AK" + "IA" + r(UPPER + "234567", 16), s),
    "aws-secret-key": lambda r: ("aws_secret_access_key = " + (s := r(ALNUM + "/+", 40)), s),
    "google-api-key": lambda r: (s := "AI" + "za" + r(URLSAFE, 35), s),
    "google-oauth-secret": lambda r: (s := "GOCSPX" + "-" + r(URLSAFE, 28), s),
    "google-oauth-token": lambda r: (s := "ya29" + "." + r(URLSAFE, 80), s),
    "azure-ad-client-secret": lambda r: (s := r(ALNUM, 3) + "8Q~" + r(ALNUM, 34), s),
    "azure-storage-key": lambda r: (
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + (s := r(B64, 86) + "=="), s),
    "azure-sas-token": lambda r: (
        "https://acct.blob.core.windows.net/c/f.txt?sv=2024-05-04&sr=b&sig=" + (s := r(ALNUM, 43) + "%3D"), s),
    "alibaba-access-key": lambda r: (s := "LT" + "AI" + r(ALNUM, 20), s),
    "digitalocean-token": lambda r: (s := "dop" + "_v1_" + r(HEX, 64), s),
    "heroku-api-key": lambda r: (s := "HRKU" + "-AA" + r(URLSAFE, 58), s),
    "cloudflare-origin-ca-key": lambda r: (s := "v1.0-" + r(HEX, 24) + "-" + r(HEX, 146), s),
    "flyio-token": lambda r: (s := "fo1" + "_" + r(URLSAFE, 43), s),
    "databricks-token": lambda r: (s := "da" + "pi" + r(HEX, 32), s),
    "hashicorp-vault-token": lambda r: (s := "hvs" + "." + r(URLSAFE, 95), s),
    "terraform-cloud-token": lambda r: (s := r(ALNUM, 14) + ".atlas" + "v1." + r(URLSAFE, 65), s),
    "doppler-token": lambda r: (s := "dp" + ".pt." + r(ALNUM, 43), s),
    "pulumi-token": lambda r: (s := "pul" + "-" + r(HEX, 40), s),
    "planetscale-token": lambda r: (s := "pscale" + "_tkn_" + r(ALNUM, 43), s),
    "supabase-token": lambda r: (s := "sb" + "p_" + r(HEX, 40), s),
    "onepassword-token": lambda r: (s := "ops" + "_eyJ" + r(ALNUM, 300), s),
    "dynatrace-token": lambda r: (s := "dt0c01" + "." + r(UPPER + DIGITS, 24) + "." + r(UPPER + DIGITS, 64), s),
    "openshift-token": lambda r: (s := "sha256" + "~" + r(URLSAFE, 43), s),
    "scalingo-token": lambda r: (s := "tk-" + "us-" + r(URLSAFE, 48), s),
    "grafana-token": lambda r: (s := "gl" + "sa_" + r(ALNUM, 32) + "_" + r(HEX, 8), s),
    "newrelic-key": lambda r: (s := "NR" + "AK-" + r(UPPER + DIGITS, 27), s),
    "sentry-token": lambda r: (s := "sntry" + "u_" + r(HEX, 64), s),
    "github-pat": lambda r: (s := "gh" + "p_" + r(ALNUM, 36), s),
    "github-fine-grained-pat": lambda r: (s := "github" + "_pat_" + r(ALNUM, 22) + "_" + r(ALNUM, 59), s),
    "github-oauth-token": lambda r: (s := "gh" + "o_" + r(ALNUM, 36), s),
    "github-app-token": lambda r: (s := "gh" + "s_" + r(ALNUM, 36), s),
    "github-refresh-token": lambda r: (s := "gh" + "r_" + r(ALNUM, 36), s),
    "gitlab-pat": lambda r: (s := "gl" + "pat-" + r(URLSAFE, 20), s),
    "gitlab-token": lambda r: (s := "gl" + "rt-" + r(ALNUM, 20), s),
    "bitbucket-app-password": lambda r: (s := "AT" + "BB" + r(ALNUM, 32), s),
    "atlassian-api-token": lambda r: (s := "ATATT3" + "xFfGF0" + r(URLSAFE, 180), s),
    "sourcegraph-token": lambda r: (s := "sg" + "p_" + r(HEX, 16) + "_" + r(HEX, 40), s),
    "slack-token": lambda r: (s := "xo" + "xb-" + r(DIGITS, 12) + "-" + r(DIGITS, 13) + "-" + r(ALNUM, 24), s),
    "slack-app-token": lambda r: (s := "xa" + "pp-1-A" + r(UPPER + DIGITS, 10) + "-" + r(DIGITS, 13) + "-" + r(HEX, 64), s),
    "slack-webhook": lambda r: (
        "https://hooks.slack.com/services/" + (s := "T" + r(UPPER, 8) + "/B" + r(UPPER, 10) + "/" + r(ALNUM, 24)), s),
    "discord-webhook": lambda r: (
        "https://discord.com/api/webhooks/" + r(DIGITS, 18) + "/" + (s := r(URLSAFE, 68)), s),
    "discord-bot-token": lambda r: (
        "discord bot: " + (s := "M" + r(ALNUM, 23) + "." + r(ALNUM, 6) + "." + r(ALNUM, 27)), s),
    "telegram-bot-token": lambda r: (s := r(DIGITS, 9) + ":AA" + r(ALNUM, 33), s),
    "teams-webhook": lambda r: (
        f"https://acme.webhook.office.com/webhookb2/{r.uuid()}@{r.uuid()}/IncomingWebhook/"
        + (s := r(HEX, 32) + "/" + r.uuid()), s),
    "twilio-api-key": lambda r: (s := "S" + "K" + r(HEX, 32), s),
    "sendgrid-api-key": lambda r: (s := "SG" + "." + r(URLSAFE, 22) + "." + r(URLSAFE, 43), s),
    "mailgun-api-key": lambda r: (s := "key" + "-" + r(HEX, 32), s),
    "mailchimp-api-key": lambda r: (s := r(HEX, 32) + "-us" + "14", s),
    "brevo-api-key": lambda r: (s := "xkey" + "sib-" + r(HEX, 64) + "-" + r(ALNUM, 16), s),
    "postman-api-key": lambda r: (s := "PM" + "AK-" + r(HEX, 24) + "-" + r(HEX, 34), s),
    "linear-api-key": lambda r: (s := "lin" + "_api_" + r(ALNUM, 40), s),
    "facebook-access-token": lambda r: (s := "EA" + "AG" + r(ALNUM, 150), s),
    "stripe-key": lambda r: (s := "s" + "k_" + "live_" + r(ALNUM, 24), s),
    "stripe-webhook-secret": lambda r: (s := "wh" + "sec_" + r(ALNUM, 32), s),
    "square-token": lambda r: (s := "sq0" + "csp-" + r(URLSAFE, 43), s),
    "braintree-token": lambda r: (
        s := "access_token$" + "production$" + r(LOWER + DIGITS, 16) + "$" + r(HEX, 32), s),
    "shopify-token": lambda r: (s := "shp" + "at_" + r(HEX, 32), s),
    "flutterwave-secret-key": lambda r: (s := "FLWSECK" + "_TEST-" + r("abcdefgh0123456789", 32) + "-X", s),
    "plaid-access-token": lambda r: (s := "access-" + "sandbox-" + r.uuid(), s),
    "easypost-api-key": lambda r: (s := "EZ" + "AK" + r(ALNUM, 54), s),
    "duffel-token": lambda r: (s := "duffel" + "_test_" + r(ALNUM, 43), s),
    "shippo-token": lambda r: (s := "shippo" + "_live_" + r(HEX, 40), s),
    "npm-token": lambda r: (s := "np" + "m_" + r(ALNUM, 36), s),
    "npmrc-auth": lambda r: ("//registry.npmjs.org/:_authToken=" + (s := r.uuid()), s),
    "pypi-token": lambda r: (s := "pypi-" + "AgEIcHlwaS5vcmc" + r(URLSAFE, 70), s),
    "rubygems-token": lambda r: (s := "rubygems" + "_" + r(HEX, 48), s),
    "nuget-api-key": lambda r: (s := "oy" + "2" + r(LOWER + DIGITS, 43), s),
    "clojars-token": lambda r: (s := "CLOJARS" + "_" + r(LOWER + DIGITS, 60), s),
    "docker-hub-token": lambda r: (s := "dckr" + "_pat_" + r(ALNUM, 27), s),
    "artifactory-token": lambda r: (s := "AK" + "Cp" + r(ALNUM, 69), s),
    "crates-io-token": lambda r: (s := "ci" + "o" + r(ALNUM, 32), s),
    "readme-api-key": lambda r: (s := "rdme" + "_" + r(LOWER + DIGITS, 70), s),
    "prefect-api-key": lambda r: (s := "pn" + "u_" + r(ALNUM, 36), s),
    "infracost-api-key": lambda r: (s := "ico" + "-" + r(ALNUM, 32), s),
    "typeform-token": lambda r: (s := "tf" + "p_" + r(ALNUM, 59), s),
    "airtable-token": lambda r: (s := "pat" + r(ALNUM, 14) + "." + r(HEX, 64), s),
    "mapbox-secret-token": lambda r: (s := "sk" + ".eyJ" + r(URLSAFE, 60) + "." + r(URLSAFE, 22), s),
    "harness-token": lambda r: (s := "pat" + "." + r(URLSAFE, 22) + "." + r(ALNUM, 24) + "." + r(ALNUM, 20), s),
    "snyk-token": lambda r: ("SNYK_TOKEN=" + (s := r.uuid()), s),
    "uri-credentials": lambda r: ("postgres://admin:" + (s := r(ALNUM, 18)) + "@db.internal:5432/app", s),
    "url-user-token": lambda r: ("https://" + (s := r(LOWER, 20) + "7" + r(ALNUM, 31)) + "@dev.azure.com/org/p/_git/r", s),
    "curl-user-password": lambda r: ("curl -u deploy:" + (s := r(ALNUM, 16)) + " https://ci", s),
    "basic-auth-header": lambda r: (
        "Authorization: Basic " + (s := base64.b64encode(f"ci:{r(ALNUM, 20)}".encode()).decode()), s),
    "bearer-token": lambda r: ("curl -H 'Authorization: Bearer " + (s := r(ALNUM, 40)) + "' https://api", s),
    "authorization-header": lambda r: ("Authorization: token " + (s := r(ALNUM, 40)), s),
    "cookie": lambda r: ("Cookie: sid=" + (s := r(ALNUM, 32)), s),
    "secret-flag": lambda r: ("docker login -u ci --password " + (s := r(ALNUM, 16)) + " reg", s),
    "password-flag": lambda r: ("mysql -u root -p" + (s := r(ALNUM, 14)) + " app", s),
    "generic-password": lambda r: ('DB_PASSWORD="' + (s := r(ALNUM, 10) + "!4x") + '"', s),
    "generic-secret": lambda r: ("SECRET_KEY=" + (s := r(ALNUM, 40)), s),
}  # fmt: skip


def test_every_rule_has_a_sample_and_ids_are_unique():
    ids = [rule.id for rule in RULES]
    assert len(ids) == len(set(ids))
    assert set(SAMPLES) == set(ids)


@pytest.mark.parametrize("rule_id", [rule.id for rule in RULES])
def test_each_rule_redacts_a_token_of_its_format(rule_id):
    text, secret = SAMPLES[rule_id](Gen(len(rule_id)))
    counts: Counter[str] = Counter()
    out = redact_text(f"before {text} after", counts)
    assert secret not in out
    assert f"[REDACTED:{rule_id}]" in out
    assert counts == {rule_id: 1}
    assert out.startswith("before ") and out.endswith(" after")


# The rules of a token known by its prefix (``ghp_…``, ``AKIA…``), their sample its token alone.
PREFIXED = [
    r.id
    for r in RULES
    if r.pattern.startswith("(?:\\b|") and (t := SAMPLES[r.id](Gen(2)))[0] == t[1]
]


@pytest.mark.parametrize("rule_id", PREFIXED)
def test_a_token_glued_after_an_underscore_is_found_by_its_prefix(rule_id):
    _, secret = SAMPLES[rule_id](Gen(13))
    for text in (f"key_{secret}", f"AWS_KEY_{secret} rest", f"export MY_TOKEN=prefix_{secret}"):
        out = redact_text(text)
        assert secret not in out, text
        assert f"[REDACTED:{rule_id}]" in out


def test_enough_rules_know_their_token_by_its_prefix():
    assert {"github-pat", "aws-access-key", "stripe-key", "slack-token", "npm-token"} <= set(
        PREFIXED
    )


@pytest.mark.parametrize("rule_id", ["github-pat", "anthropic-api-key", "aws-access-key"])
def test_secrets_are_found_in_json_quotes_and_after_punctuation(rule_id):
    _, secret = SAMPLES[rule_id](Gen(7))
    for text in (f'{{"k": "{secret}"}}', f"({secret})", f"`{secret}`", f"x={secret};"):
        assert secret not in redact_text(text)


def test_a_private_key_truncated_or_inside_a_json_string_is_still_redacted():
    r = Gen(3)
    lines = [r(B64, 64) for _ in range(3)]
    head = "-----BEGIN " + "OPENSSH PRIVATE KEY-----"
    truncated = head + "\n" + "\n".join(lines) + "\n"
    escaped = head + "\\n" + "\\n".join(lines) + "\\n-----END OPENSSH PRIVATE KEY-----"
    for text in (truncated, f'{{"content": "{escaped}"}}'):
        out = redact_text(text)
        assert not any(line in out for line in lines)
        assert "[REDACTED:private-key]" in out


def test_only_the_password_of_a_uri_is_redacted():
    out = redact_text("DATABASE_URL=postgresql://app_user:" + "Xy7pQ2vLm9@db.example.com:5432/app")
    assert (
        out
        == "DATABASE_URL=postgresql://app_user:[REDACTED:uri-credentials]@db.example.com:5432/app"
    )


def test_redaction_is_stable_and_idempotent():
    text = "\n".join(t for t, _ in (make(Gen(5)) for make in SAMPLES.values()))
    once = redact_text(text)
    assert redact_text(text) == once  # the same on every run
    assert redact_text(once) == once  # a placeholder is never redacted again


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(sorted(SAMPLES)), max_size=4), st.text(max_size=200))
def test_redacting_twice_changes_nothing_more(rule_ids, noise):
    text = noise.join(SAMPLES[rule_id](Gen(11))[0] for rule_id in rule_ids) + noise
    once = redact_text(text)
    assert redact_text(once) == once


# -- what must stay ---------------------------------------------------------------------


def _png_base64(size: int, seed: int) -> str:
    rng = random.Random(seed)
    data = b"\x89PNG\r\n\x1a\n" + bytes(rng.getrandbits(8) for _ in range(size))
    return base64.b64encode(data).decode()


def test_ids_hashes_and_images_stay_intact():
    rng = random.Random(1)
    keep = [
        *(str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(50)),
        *(hashlib.sha1(str(i).encode()).hexdigest() for i in range(50)),  # git SHAs
        *(hashlib.sha256(str(i).encode()).hexdigest() for i in range(50)),
        *(hashlib.md5(str(i).encode()).hexdigest() for i in range(50)),  # noqa: S324
        "sha512-" + base64.b64encode(hashlib.sha512(b"pkg").digest()).decode(),
        "data:image/png;base64," + _png_base64(300_000, 2),
        _png_base64(200_000, 3),
        "\n".join(_png_base64(57, i) for i in range(2000)),  # a base64 file wrapped at 76
    ]
    text = "\n".join(keep)
    assert redact_text(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "The password must be at least 12 characters and the token expires after an hour.",
        "Set the API key in your environment, then pass it with the secret flag.",
        'password = os.environ["DB_PASSWORD"]',
        "api_key = settings.OPENAI_API_KEY",
        "token: str = Field(default=None)",
        "max_tokens=4096, tokens_in: 1234567",
        'tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")',
        "export GITHUB_TOKEN=${GITHUB_TOKEN}",
        'OPENAI_API_KEY="<your-api-key>"',
        "SECRET_KEY=changeme-in-production",
        "password: ********",
        "postgres://user:${DB_PASSWORD}@localhost/app",
        "git clone git@github.com:org/repo.git && git checkout 3f2a9c1d",
        "https://example.com:8443/path?q=1",
        "Authorization: Bearer $TOKEN",
        "Use sk-ant-... (truncated) or sk-proj-... in the docs",
        '"GIT_ASKPASS": "/usr/lib/code/extensions/git/dist/askpass.sh"',
        "bypass: cache-first-strategy-v2",
        "docker run -u 1000:1000 image && git push -u origin main",
        "credentials_path: /home/dev/.config/gcloud/application_default_credentials.json",
        "ssh-keygen --no-password --verbose && llm --max-token 4096 --max-tokens 8192",
        "pytest --reset-token-cache tests/test_auth.py && gh auth login --with-token < t.txt",
    ],
)
def test_prose_code_and_references_stay(text):
    assert redact_text(text) == text


@pytest.mark.parametrize(
    "flag", ["--openai-api-key", "--anthropic-api-key", "--github-token", "--db-password",
             "--hf-token", "--client-secret"],
)  # fmt: skip
def test_a_flag_named_for_a_secret_after_its_services_name_is_redacted(flag):
    """``aider --openai-api-key <key>`` (an Azure or proxy key, no shape a rule knows):
    the flag rule knew ``--api-key`` alone, and the key reached the note."""
    secret = Gen(len(flag))(ALNUM, 32)
    for text in (
        f"aider {flag} {secret} --model x",
        f"tool {flag}={secret}",
        f'run {flag} "{secret}"',
    ):
        out = redact_text(text)
        assert secret not in out and "[REDACTED:secret-flag]" in out, out


def test_allowed_strings_are_never_redacted():
    _, secret = SAMPLES["github-pat"](Gen(9))
    _, other = SAMPLES["github-pat"](Gen(10))
    rules = Redactor(RULES, allow=[secret])
    out = rules.text(f"{secret} {other}")
    assert out == f"{secret} [REDACTED:github-pat]"


def test_extra_rules_run_before_ours_and_are_prefiltered_by_their_keywords():
    rules = redactor((Rule("acme-key", ("acme_",), r"\bacme_[0-9]{10}\b"),), ())
    counts: Counter[str] = Counter()
    assert rules.text("key acme_0123456789 end", counts) == "key [REDACTED:acme-key] end"
    assert counts == {"acme-key": 1}
    assert rules.fingerprint != redactor().fingerprint


def test_tool_inputs_under_secret_names_are_redacted_but_other_values_stay():
    value = {
        "command": "deploy",
        "password": "Tr0ub4dor&3",
        "headers": {"X-Api-Key": "q8Xr2LmZ7vKd0PsTn4Wb"},
        "max_tokens": 4096,
        "token_file": "/run/secrets/token",
        "items": ["a", "b"],
    }
    out = redactor().value(value)
    assert out["password"] == "[REDACTED:generic-password]"
    assert out["headers"]["X-Api-Key"] == "[REDACTED:generic-secret]"
    assert {k: out[k] for k in ("command", "max_tokens", "token_file", "items")} == {
        k: value[k] for k in ("command", "max_tokens", "token_file", "items")
    }


def test_a_tool_input_is_copied_only_where_a_secret_was_found():
    token = "ghp_" + Gen(5)(ALNUM, 36)
    clean = {"file_path": "/src/app.py", "edits": [{"old": "a", "new": "b"}], "n": 3}
    rules = redactor()
    assert rules.value(clean) is clean  # nothing in it changed: not rebuilt at any level
    value = {"auth": {"header": f"token {token}"}, "body": clean, "tags": ("x", token)}
    out = rules.value(value)
    assert out["auth"]["header"] == "token [REDACTED:github-pat]"
    assert out["tags"] == ("x", "[REDACTED:github-pat]")
    assert out["body"] is clean  # the clean branch shared, not copied
    assert value["auth"]["header"] == f"token {token}"  # the input itself left as it was


def _rebuilt(rules: Redactor, value, counts, name: str = "", under: str | None = None):
    """What ``Redactor.value`` gives, as it was first written: every container rebuilt. A
    ``{name, value}`` entry names its value; a flag (``--password``), or the first of a
    pair, names the argument after it; a key that holds secrets (``credentials``) passes
    its rule to every value below it."""
    if isinstance(value, dict):
        named = entry_name(value)
        out = {
            rules.text(k, counts) if isinstance(k, str) else k: _rebuilt(
                rules, v, counts, named if named and k in ("value", "Value") else str(k),
                (isinstance(k, str) and not isinstance(v, str) and holder_rule(k)) or under,
            )
            for k, v in value.items()
        }  # fmt: skip
        return value if out == value else out
    if isinstance(value, list | tuple):
        items = [
            _rebuilt(rules, v, counts, item_name(value, i) or name, under)
            for i, v in enumerate(value)
        ]
        rebuilt = value if items == list(value) else type(value)(items)
        # A command as its words (``["password", "000000", ""]`` reads as one): judged
        # written out, as ``Redactor.value`` does; that reading is not what is checked here.
        return rules._as_command(rebuilt, counts) if _is_argv(rebuilt) else rebuilt
    return rules.value(value, counts, name, under)


_TOKEN = "ghp_" + Gen(9)(ALNUM, 36)
_STRINGS = st.sampled_from(
    ["", "ok", "command", "password", "api_key", "Tr0ub4dor&3x", "q8Xr2LmZ7vKd0PsTn4Wb",
     _TOKEN, f"Bearer {_TOKEN}", "token_file", "/run/secrets/token", "credentials",
     "secrets", "name", "20240101"]
) | st.text(max_size=12)  # fmt: skip
_JSON_LIKE = st.recursive(
    st.none() | st.integers() | st.sampled_from([93847561, 4096]) | st.booleans() | _STRINGS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(_STRINGS, inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(value=_JSON_LIKE)
@example(value=["password", "000000", ""])  # found: the reference did not read it as a command
@example(value={"a": ("password", "Tr0ub4dor&3x", "x"), "b": ["ok"]})
def test_a_value_is_redacted_and_counted_as_when_every_container_was_rebuilt(value):
    rules = Redactor(RULES)  # its own: keys it finds clean are remembered across calls
    for _ in range(2):  # the second time with the clean keys remembered
        ours, theirs = Counter(), Counter()
        assert rules.value(value, ours) == _rebuilt(rules, value, theirs)
        assert ours == theirs


def test_text_without_secrets_is_returned_as_the_same_object():
    text = "nothing to see here, just a long sentence about a password policy " * 50
    assert redact_text(text) is text


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ('client_secret = "Xk3.9mPq2.LzR7vW"', "generic-secret"),  # dotted, but with digits
        ("API_TOKEN=QwErTyUiOpAsDfGhJkLzXcVbNm", "generic-secret"),  # no digit, random
        ('{"password": "correct-h0rse-battery"}', "generic-password"),
        ("userPassword: Zq8!vR2#kL", "generic-password"),
    ],
)
def test_generic_assignments_with_random_looking_values_are_redacted(text, rule):
    assert f"[REDACTED:{rule}]" in redact_text(text)


def test_tokens_glued_together_are_all_redacted_in_one_call():
    # Each placeholder gives the next token the word boundary it lacked: found by hypothesis.
    ids = ["grafana-token"] * 3 + ["databricks-token"]
    text = "".join(SAMPLES[rule_id](Gen(11))[0] for rule_id in ids)
    once = redact_text(text)
    assert once == "".join(f"[REDACTED:{rule_id}]" for rule_id in ids)


def test_a_users_keyword_outside_ascii_is_found():
    """Texts are searched as UTF-8 bytes: a keyword is too, so ``clé`` finds its rule."""
    mine = Redactor((Rule("mine", ("clé",), r"clé=[a-z0-9]{12}", near=False, fold=True),))
    assert mine.text("x clé=abcdef123456 y") == "x [REDACTED:mine] y"
    assert mine.text("x CLÉ: nothing here") == "x CLÉ: nothing here"


_KEYWORDS = sorted({k for rule in RULES for k in rule.keywords}) + ["clé", "ключ"]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(_KEYWORDS),
            st.sampled_from(_KEYWORDS).map(str.upper),
            st.text(max_size=12),
            st.sampled_from(["clé", "CLÉ", "ключ", "é", "\udc80", "ё", "\x00", " ", "=", '"']),
        ),
        max_size=12,
    )
)
def test_the_keyword_prefilter_never_hides_a_keyword(pieces):
    """The one-search prefilter says "no keyword" only where the automaton finds none: the
    stretches each rule is run on are the same with and without it."""
    rules = Redactor((*RULES, Rule("mine", ("clé", "ключ"), r"x", near=False, fold=True)))
    data = "".join(pieces).encode("utf-8", "surrogatepass")
    keywords = rules.keywords
    with mock.patch.object(redact_keywords, "_PREFILTER_FROM", 0):  # short texts too
        with_filter = keywords.spots(data)
    assert keywords.any_keyword is not None
    keywords.__dict__["any_keyword"] = None  # the automaton alone
    assert keywords.spots(data) == with_filter


def test_a_keyword_that_starts_inside_another_is_found_in_a_long_text():
    """The one search over a long text matches "ab" at the start and goes on after it, past
    where "bcdefghij" starts: the automaton still walks far enough to find that one."""
    rules = Redactor((Rule("short", ("ab",), r"abzzz", near=False),
                      Rule("long", ("bcdefghij",), r"bcdefghij=\w+", near=True)))  # fmt: skip
    text = "x" * 300 + "abcdefghij=s3cr3tvalue and more" + "y" * 300
    assert len(text) > redact_keywords._PREFILTER_FROM
    assert "[REDACTED:long]" in rules.text(text)
    data = text.encode()
    walked = rules.keywords.spots(data)
    rules.keywords.__dict__["any_keyword"] = None  # the automaton over the whole text
    assert walked == rules.keywords.spots(data)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*_KEYWORDS[:40], "x", " ", "é", "pat", "sk", "://"]), max_size=40))
def test_the_keyword_search_gives_the_same_stretches_through_either_binding(pieces):
    """The binding's own search, and the wrapper's public one (used where a version of
    google-re2 lacks the former): the same stretches."""
    keywords = Redactor(RULES).keywords
    data = "".join(pieces).encode()
    assert keywords.any_keyword is not None
    native = keywords.stretches(data)

    class PublicOnly:  # what the wrapper documents, and nothing of its binding
        search = keywords.any_keyword.search

    keywords.__dict__["any_keyword"] = PublicOnly()
    del keywords.__dict__["first_keyword"]  # chosen again, for the public search alone
    assert keywords.stretches(data) == native


_INVISIBLE = ["\u200b", "\u00ad", "\u2060", "\u202c", "\u200e", "\ufeff", "\x85", "\u2066",
              "\u2069", "\u034f", "\ufe0f", "\U000e0041", "\u180b", "\u3164"]  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(SAMPLES)), st.integers(1, 30), st.sampled_from(_INVISIBLE))
def test_a_token_split_by_a_character_that_shows_nothing_is_redacted(rule_id, at, mark):
    """A zero-width space, soft hyphen, word joiner or direction mark inside a token shows
    nothing: the note showed the token whole, unredacted (from the safety audit)."""
    text, secret = SAMPLES[rule_id](Gen(11))
    at = min(at, len(secret) - 1)
    split = text.replace(secret, secret[:at] + mark + secret[at:])
    out = redactor().text(f"here: {split} (end)")
    assert secret[:at] + mark + secret[at:] not in out and secret not in out
    assert "[REDACTED:" in out


def test_only_the_marks_inside_a_token_go_with_it():
    """Found by looking through the marks inside a token, a secret is redacted; the text's
    other invisible characters stay: an emoji's joiners, a Persian word's non-joiner."""
    family, persian = "👨\u200d👩\u200d👧", "می\u200cخواهم"
    token = "ghp_" + Gen(4)(ALNUM, 36)
    out = redactor().text(f"{family} {token[:9]}\u200b{token[9:]} {persian}")
    assert out == f"{family} [REDACTED:github-pat] {persian}"


@pytest.mark.parametrize(
    ("value", "where"),
    [
        ({"argv": ["mysql", "-u", "root", "--password", "{pw}", "-h", "db"]}, ("argv", 4)),
        ({"url": "https://db", "auth": ["admin", "{pw}"]}, ("auth", 1)),
        ({"headers": {"authorization": "{pw}"}}, ("headers", "authorization")),
        ({"headers": {"Cookie": "session={pw}"}}, ("headers", "Cookie")),
        ({"headers": [["Authorization", "Bearer {pw}"]]}, ("headers", 0, 1)),
        ({"env": [{"name": "DB_PASSWORD", "value": "{pw}"}]}, ("env", 0, "value")),
        ({"Parameters": [{"Name": "DB_PASSWORD", "Value": "{pw}"}]}, ("Parameters", 0, "Value")),
        ({"пароль": "{pw}"}, ("пароль",)),
        ({"Passwort": "{pw}"}, ("Passwort",)),
        ({"mot_de_passe": "{pw}"}, ("mot_de_passe",)),
        ({"密码": "{pw}"}, ("密码",)),
    ],
)
def test_a_secret_named_by_the_arguments_shape_is_redacted(value, where):
    """A tool's arguments name a secret by their shape, not only by a key: the flag before
    it, a header's name in a pair, a name/value entry. Each reached the note (from the
    safety audit)."""
    import json

    pw = Gen(3)(ALNUM, 16)
    value = json.loads(json.dumps(value).replace("{pw}", pw))
    out = redactor().value(value)
    for step in where:
        out = out[step]
    assert out.startswith("[REDACTED:generic-")


def test_arguments_that_only_look_named_stay():
    value = {
        "args": ["--token-file", "/etc/app/token", "--author", "Jane Doe", "--auth-mode", "oauth"],
        "files": ["password_reset.py", "tests/test_password_reset.py"],
        "cmd": ["git", "commit", "-m", "fix token refresh"],
        "env": [{"name": "PASSWORD_MIN_LENGTH", "value": "12"}],
        "argv": ["kubectl", "get", "secret", "app-tls-7f9c2b", "-o", "yaml"],
    }
    assert redactor().value(value) is value


def test_rules_read_no_text_build_nothing_until_the_first():
    """A run with nothing to read (an empty home, start-up's figure) builds neither the
    keyword index nor the base64 spellings of 600 words (6 ms) nor a pattern: the first
    text read does."""
    rules = Redactor(RULES)
    assert "keywords" not in rules.__dict__ and "_regexes" not in rules.__dict__
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    assert rules.text(f"token {token}") != f"token {token}"
    assert "keywords" in rules.__dict__
