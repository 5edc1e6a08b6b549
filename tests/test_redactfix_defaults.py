"""A default or stand-in password of a ``user:password`` pair is no secret (review16 F3):
RabbitMQ's ``amqp://guest:guest@localhost:5672//`` came out as
``amqp://guest:[REDACTED:uri-credentials]@…``, 14 times in one note, and search for the
broker's URL found nothing. A real password there is still redacted (both ways below).

The passwords here are made up.
"""

from __future__ import annotations

from collections import Counter

import pytest

from exporter.redact import redact_text


@pytest.mark.parametrize(
    "text",
    [
        "amqp://guest:guest@localhost:5672//",
        "CELERY_BROKER_URL=pyamqp://guest:guest@rabbitmq:5672//",
        "broker_url = 'amqp://app:guest@localhost'",  # RabbitMQ's documented default
        "postgres://postgres:postgres@localhost:5432/app",  # the user's own name
        "mongodb://admin:admin@127.0.0.1:27017",
        "postgresql://user:password@localhost/db",  # a manual's words
        "postgresql://user:pass@localhost/db",
        "mysql://root:PASSWORD@db:3306/app",
        "redis://:password@localhost:6379/0",
        "redis://default:secret@localhost:6379",
        "postgresql://app:your_password@db/app",
        "postgresql://app:yourpassword@db/app",
        "postgresql://app:mypassword@db/app",
        "postgresql://app:db_password@db/app",
        "postgres://elastic:changeme@localhost",
        "postgres://app:example@localhost",
        "postgres://app:xxxxxxxx@localhost",
        "postgres://app:<password>@localhost",
        "postgres://app:${DB_PASSWORD}@localhost",
        "postgres://app:$PGPASSWORD@localhost",
        "mysql://root:%DB_PASS%@localhost/app",
        'f"postgresql://{user}:{password}@localhost/app"',
        "postgresql://app:[password]@localhost/app",
        "https://x:x-oauth-basic@github.com/a/b.git",  # GitHub's: the token is the user
        "curl -u admin1:admin1 https://localhost:15672/api/overview",
        "curl -u guest:guest http://localhost:15672/api/queues",
    ],
)
def test_default_and_stand_in_passwords_stay(text):
    counts: Counter[str] = Counter()
    assert redact_text(text, counts) == text
    assert not counts


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        (
            "postgresql://trading_bot:dev_password_123@localhost:5432/trading",
            "postgresql://trading_bot:[REDACTED:uri-credentials]@localhost:5432/trading",
        ),
        (
            "amqp://guest:guest2024@localhost:5672//",
            "amqp://guest:[REDACTED:uri-credentials]@localhost:5672//",
        ),
        (
            "amqp://app:Guest-9xQ@localhost:5672//",
            "amqp://app:[REDACTED:uri-credentials]@localhost:5672//",
        ),
        (
            "postgres://postgres:postgres1@localhost/app",  # not the user's name
            "postgres://postgres:[REDACTED:uri-credentials]@localhost/app",
        ),
        (
            "postgres://app:passw0rd@localhost/app",  # weak, but a password
            "postgres://app:[REDACTED:uri-credentials]@localhost/app",
        ),
        (
            "redis://:s3cr3t-Kq9@localhost:6379",
            "redis://:[REDACTED:uri-credentials]@localhost:6379",
        ),
        (
            "curl -u deploy:Zk8qW2mP7xV4 https://ci.example.com",
            "curl -u deploy:[REDACTED:curl-user-password] https://ci.example.com",
        ),
    ],
)
def test_real_passwords_of_a_pair_are_still_redacted(text, redacted):
    counts: Counter[str] = Counter()
    assert redact_text(text, counts) == redacted
    assert sum(counts.values()) == 1


def test_a_default_password_next_to_a_real_one():
    """The same line, two brokers: only the real password goes."""
    text = "amqp://guest:guest@localhost// amqp://worker:Tq7vN2pLx9@mq.internal//"
    assert redact_text(text) == (
        "amqp://guest:guest@localhost// amqp://worker:[REDACTED:uri-credentials]@mq.internal//"
    )
