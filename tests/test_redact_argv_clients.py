"""A client's password given as the items of a list of strings, as a program's argv
(``subprocess.run(["zip", "-P", "…", "a.zip"])``): read as the command written out, as
the same command on one line is (SQL Server's ``sqlcmd -P``, ``keytool -storepass``,
``zip -P``, OpenSSL's ``enc -k``, ``gh secret set … --body``, curl's ``--oauth2-bearer``).
Lists of such commands without a password stay. The values are random characters made at
test time; none is real."""

from __future__ import annotations

import pytest

from exporter.redact import redact_text

V = "Xk9mQ2vL8pR4tW7zY3bN6cF1"


@pytest.mark.parametrize(
    "argv",
    [
        ["sqlcmd", "-S", "db", "-U", "sa", "-P", V],
        ["bcp", "t", "out", "f.dat", "-P", V],
        ["keytool", "-list", "-storepass", V],
        ["jarsigner", "-keypass", V, "app.jar", "alias"],
        ["zip", "-P", V, "a.zip", "f"],
        ["unzip", "-P", V, "a.zip"],
        ["7z", "a", "-p" + V, "x.7z"],
        ["mosquitto_pub", "-u", "me", "-P", V, "-t", "x"],
        ["openssl", "enc", "-aes-256-cbc", "-k", V],
        ["gh", "secret", "set", "API", "--body", V],
        ["curl", "--oauth2-bearer", V, "https://example.org"],
    ],
)
@pytest.mark.parametrize("quote", ["'", '"'])
def test_a_clients_password_in_an_argv_list_is_redacted(argv, quote):
    text = "[" + ", ".join(f"{quote}{item}{quote}" for item in argv) + "]"
    out = redact_text(text)
    assert V not in out and "[REDACTED:" in out
    assert redact_text(" ".join(argv)) != " ".join(argv)  # (as written out)


@pytest.mark.parametrize(
    "argv",
    [
        ["zip", "-r", "out.zip", "src"],
        ["openssl", "rand", "-hex", "32"],
        ["gh", "pr", "view", "123"],
        ["keytool", "-list", "-v", "-keystore", "app.jks"],
        ["sqlcmd", "-S", "db", "-Q", "SELECT 1"],
    ],
)
def test_a_clients_list_without_a_password_stays(argv):
    text = repr(argv)
    assert redact_text(text) == text
