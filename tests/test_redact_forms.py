"""Credentials in the forms review27 (F7) found passing, and the names it found redacted
though they name no secret. Every value here is made up at test time: none is real.
"""

from __future__ import annotations

import base64
import json
import random
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exporter.redact import redact_text, redactor
from exporter.redact_names import shannon_entropy

ALNUM = string.ascii_letters + string.digits


def _random(seed: int, n: int, alphabet: str = ALNUM) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(n - 2)) + "7x"


PASSWORD = "Tr0ub4d-" + _random(1, 10)  # a password: digits, a dash, letters
TOKEN = _random(2, 32)  # an opaque token of no vendor's format
AWS_ID = "AKIA" + _random(3, 16, string.ascii_uppercase + "234567").upper()[:14] + "Q7"
AWS_SECRET = _random(4, 38, ALNUM + "/+") + "Zq"  # 40 characters


def gone(text: str, secret: str) -> bool:
    out = redact_text(text)
    return secret not in out and "[REDACTED:" in out


# -- passwords given to a command ------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        "docker login -u me -p {P} registry.example.com",
        "podman login quay.io -u me -p '{P}'",
        "az login --service-principal -u appid -p {P} --tenant t",
        "redis-cli -h cache -p 6380 -a {P} ping",
        "htpasswd -b .htpasswd admin {P}",
        "htpasswd -nbB admin {P}",
        "ssh-keygen -p -P {P} -N {P}2 -f key",
        "net use Z: \\\\srv\\share /user:dom\\me {P}",
        "net use Z: \\\\srv\\share {P} /user:dom\\me",
        "SSHPASS={P} sshpass -e ssh host",
        "machine api.example.com login me password {P}",
        "machine api.example.com\n  login me\n  password {P}\n",
        "db.example.com:5432:app:appuser:{P}",
        "*:*:*:postgres:{P}",
    ],
)
def test_a_password_a_command_or_its_file_takes_is_redacted(command):
    text = command.format(P=PASSWORD)
    out = redact_text(text)
    assert PASSWORD not in out
    assert "[REDACTED:" in out


@pytest.mark.parametrize(
    "text",
    [
        "docker run -p 8080:80 img",
        "docker login -u me --password-stdin ghcr.io",
        "docker login -p $TOKEN ghcr.io",
        "ssh-keygen -t ed25519 -N '' -f key",
        'ssh-keygen -N "" -f key',
        "htpasswd -c .htpasswd admin",
        "net use Z: \\\\srv\\share /user:dom\\me *",
        "net use Z: \\\\srv\\share /persistent:yes",
        "redis-cli -a $REDIS_PASSWORD ping",
        "git checkout -b feature/login-page",
        "Password reset",
        "localhost:5432:mydb:user:*",
    ],
)
def test_what_only_looks_like_a_password_argument_stays(text):
    assert redact_text(text) == text


# -- values named by a secret's name, in each form ------------------------------------

FORMS = [
    "set -x {NAME} {V}",  # fish
    "set -gx {NAME} {V}",
    "setx {NAME} {V}",  # Windows
    "launchctl setenv {NAME} {V}",
    "gh secret set {NAME} --body {V}",
    "gh secret set {NAME} -b'{V}' --repo me/r",
    "define( '{NAME}', '{V}' );",  # PHP
    'os.getenv("{NAME}", "{V}")',
    'os.environ["{NAME}"] = "{V}"',
    "<{NAME}>{V}</{NAME}>",
    '<add key="{NAME}" value="{V}"/>',
    "env:\n  - name: {NAME}\n    value: {V}\n",  # Kubernetes
    'env:\n  - name: {NAME}\n    value: "{V}"\n',
    '{{"name": "{NAME}", "value": "{V}"}}',
    "the {NAME} is {V}",
]
SECRET_NAMES = ["API_TOKEN", "OPENAI_API_KEY", "ApiKey", "DB_PASSWORD", "client_secret", "password"]


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(FORMS),
    st.sampled_from(SECRET_NAMES),
    # A value random as a key: digits and letters, 3 bits a character or more.
    st.text(ALNUM + "+/_.-", min_size=10, max_size=40).filter(
        lambda v: (
            sum(c.isdigit() for c in v) >= 2
            and sum(c.isalpha() for c in v) >= 2
            and shannon_entropy(v) >= 3.0
            and v[0].isalnum()
        )
    ),
)
def test_a_value_a_secrets_name_names_is_redacted_in_each_form(form, name, value):
    text = form.format(NAME=name, V=value)
    assert value not in redact_text(text), text


@pytest.mark.parametrize("form", FORMS)
def test_a_plain_word_or_a_reference_under_a_secrets_name_stays(form):
    for value in ("enabled", "required", "${API_TOKEN}", "your-api-key"):
        text = form.format(NAME="API_TOKEN", V=value)
        assert redact_text(text) == text


def test_names_that_are_no_secrets_keep_their_values_in_those_forms():
    for text in (
        "set -x PATH $PATH /usr/local/bin",
        "set -x EDITOR vim",
        'setx PATH "%PATH%;C:\\bin"',
        "- name: API_TOKEN\n  valueFrom:\n    secretKeyRef:",
        't("password", "Password")',
        'headers.get("Authorization", "")',
        "my password is incorrect",
        "the token is expired",
        "the secret is in the vault",
    ):
        assert redact_text(text) == text


def test_prose_that_gives_a_password_loses_it():
    for text in (f"my password is {PASSWORD}", f"The password was: {PASSWORD}"):
        assert gone(text, PASSWORD)


def test_a_users_password_pair_in_code_is_redacted():
    for text in (
        f"requests.get(url, auth=('me', '{PASSWORD}'))",
        f'HTTPBasicAuth("me", "{PASSWORD}")',
        f"aiohttp.BasicAuth('me', '{PASSWORD}')",
    ):
        assert gone(text, PASSWORD)


def test_a_docker_configs_auth_and_a_masked_value_are_redacted():
    auth = base64.b64encode(f"me:{PASSWORD}".encode()).decode()
    config = json.dumps({"auths": {"https://index.docker.io/v1/": {"auth": auth}}}, indent=2)
    assert gone(config, auth)
    assert gone(f'echo "::add-mask::{TOKEN}"', TOKEN)
    for text in ('"auth": "oauth2"', "auth: basic", "author: JohnDoe2024"):
        assert redact_text(text) == text


# -- cookies ----------------------------------------------------------------------------


def test_cookies_in_headers_and_curl_are_redacted():
    for text in (
        f"Cookie: sessionid={TOKEN}; csrftoken=abc",
        f"> Cookie: theme=dark; sid={TOKEN}",
        f"< Set-Cookie: session={TOKEN}; Path=/; HttpOnly",
        f'{{"Cookie": "sid={TOKEN}"}}',
        f"curl -b 'session={TOKEN}' https://x.example",
        f'curl -s --cookie "session={TOKEN}; a=b" https://x.example',
    ):
        assert gone(text, TOKEN), text
    out = redact_text(f"< Set-Cookie: session={TOKEN}; Path=/; HttpOnly")
    assert out == "< Set-Cookie: session=[REDACTED:cookie]; Path=/; HttpOnly"


def test_cookies_without_a_secret_stay():
    for text in ("Cookie: theme=dark; lang=en", "curl -b cookies.txt https://x.example"):
        assert redact_text(text) == text


# -- AWS secret access keys -------------------------------------------------------------


def test_an_aws_secret_key_is_found_by_its_name_its_id_or_its_table_row():
    for text in (
        f"aws configure set aws_secret_access_key {AWS_SECRET}",
        f"why does {AWS_ID} fail with secret {AWS_SECRET}?",
        f"{AWS_ID} {AWS_SECRET}",
        f"| {AWS_SECRET} | {AWS_ID} |",
        f"key id {AWS_ID}, and {AWS_SECRET} is its pair",
        f"access_key     {AWS_ID} shared-credentials-file\n"
        f"secret_key     {AWS_SECRET} shared-credentials-file",
        f"the secret is {AWS_SECRET}",
    ):
        out = redact_text(text)
        assert AWS_SECRET not in out and AWS_ID not in out, text


def test_a_git_sha_beside_a_key_id_or_the_word_secret_stays():
    sha = "9f1c2b7e4a5d6c8b0a1f2e3d4c5b6a7980f1e2d3"
    for text in (f"secret {sha}", f"commit {sha} rotates {AWS_ID}"):
        assert sha in redact_text(text)


# -- names that say what a value is, not that it is a secret ---------------------------


@pytest.mark.parametrize(
    "text",
    [
        "password_policy: min_length_12_upper_lower_digit",
        "api_key_version: v2_2024_11_rollout",
        "ENCRYPTION_KEY_ID=projects/p/locations/global/keyRings/r/cryptoKeys/k",
        "api_key_id: key_01HZX8R27ABCDEF0123456789",
        "secret_hash: ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb",
        "token_sha256: sha256:ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb",
        "DB_PASSWORD_SECRET=projects/my-proj/secrets/db-password/versions/3",
        '{"signingKeyId": "k-2024-11"}',
    ],
)
def test_a_policy_a_version_a_key_id_a_hash_or_a_resource_name_stays(text):
    assert redact_text(text) == text


@pytest.mark.parametrize(
    "text",
    [
        f"secret_id: {_random(5, 36, 'abcdef0123456789-')}",  # Vault's AppRole: a credential
        f"api_key: {TOKEN}",
        f"secret_hash: {TOKEN}",  # random, not a hex digest: maybe the secret itself
        f"password_policy: {PASSWORD}",  # not a name's shape
        f"api_key_version: {TOKEN}",
    ],
)
def test_a_random_value_under_such_a_name_still_goes(text):
    assert redact_text(text) != text


def test_a_tool_inputs_key_id_and_hash_stay():
    value = {"api_key_id": "key_01HZX8R27ABCDEF0123456789", "secret_hash": "ab" * 32}
    assert redactor().value(value) == value
