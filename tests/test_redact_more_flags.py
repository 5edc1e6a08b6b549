"""Password flags and spellings of a secret's name that were kept (review47 M4): SQL
Server's ``sqlcmd``/``bcp -P``, ``--account-key``, ``--passphrase``, ``keytool
-storepass``, ``zip -P``, 7-Zip's ``-p``, Mosquitto's ``-P``, OpenSSL's ``-passout
pass:`` and ``enc -k``, a Dockerfile's ``ENV NAME value`` and a YAML block scalar under a
password's name. Every value is random characters made at test time; none is real."""

from __future__ import annotations

import random
import string

import pytest

from exporter.redact import redact_text

_rng = random.Random(20261210)
PW = "Qz4" + "".join(_rng.choice(string.ascii_letters + string.digits) for _ in range(13))
KEY = "".join(_rng.choice(string.ascii_letters + string.digits + "+/") for _ in range(86)) + "=="


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f'sqlcmd -S tcp:db,1433 -U sa -P "{PW}" -Q "select 1"', PW),
        (f"sqlcmd -S db -U sa -P {PW}", PW),
        (f"bcp db.dbo.t out f.dat -S srv -U sa -P {PW} -c", PW),
        (f"az storage blob upload --account-key {KEY} -f x", KEY),
        (f"gpg --batch --passphrase {PW} -d f.gpg", PW),
        (f"openssl enc -aes-256-cbc -k {PW} -in a", PW),
        (f"openssl pkcs12 -export -passout pass:{PW} -out a.p12", PW),
        (f"keytool -genkey -keystore k.jks -storepass {PW} -alias a", PW),
        (f"jarsigner -keystore k.jks -keypass {PW} app.apk a", PW),
        (f"zip -P {PW} out.zip f", PW),
        (f"unzip -P {PW} a.zip", PW),
        (f"7z a -p{PW} out.7z f", PW),
        (f"mosquitto_pub -h h -u me -P {PW} -t t -m hi", PW),
        (f"ENV API_TOKEN {KEY[:32]}", KEY[:32]),
        (f"ENV DB_PASSWORD {PW}", PW),
        (f"password: |\n  {PW}\nuser: me", PW),
        (f"db:\n  password: >-\n    {PW}", PW),
        (f"client_secret: |\n  {KEY[:32]}", KEY[:32]),
    ],
)
def test_a_password_flag_or_form_is_redacted(text, secret):
    out = redact_text(text)
    assert secret not in out and "[REDACTED:" in out


@pytest.mark.parametrize(
    "text",
    [
        'zip -r out.zip src -x "*.pyc"',
        "ls -P 7z",
        "7z x archive.7z -o/tmp/out",
        "git log -p",
        "openssl enc -d -aes-256-cbc -in f -k $PASS",
        "openssl req -new -key k.pem -passin file:pw.txt",
        "keytool -list -keystore k.jks -storepass:env STOREPASS",
        "ENV PASSWORD_MIN_LENGTH 12",
        "ENV TOKEN_FILE /run/secrets/token",
        "ENV NODE_ENV production",
        "description: |\n  The token is rotated daily",
        "tokens: |\n  some text here",
        "password: |\n  ${DB_PASSWORD}",
        "gpg --passphrase-file pw.txt -d f.gpg",
    ],
)
def test_what_is_no_password_stays(text):
    assert redact_text(text) == text
