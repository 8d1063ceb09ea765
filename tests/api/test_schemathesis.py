"""Schemathesis fuzzes the whole OpenAPI schema against the real ASGI server: every operation,
a bounded number of generated requests each (good and bad input, no credentials), and every
answer must be no 5xx and match the schema (status code, content type, headers, body).

One finished tournament of bots is in the database, so the list endpoints have rows to
describe; generated slugs and ids mostly miss, and the documented 404 must match too. The
requests carry a superuser's token, so that the writes run their services on what they are
given instead of stopping at the login.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token

from tests.builders import make_tournament
from tests.conftest import ROOT
from tests.e2e.conftest import asgi_server, server_env
from tests.factories import BotPlayerFactory
from tournaments import services
from tournaments.models import Tournament

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

CHECKS = ",".join(
    [
        "not_a_server_error",
        "status_code_conformance",
        "content_type_conformance",
        "response_headers_conformance",
        "response_schema_conformance",
    ]
)
EXAMPLES = 12  # per operation: bounded, so the run stays within a minute or two


def test_every_operation_answers_as_its_schema_says(
    eager_jobs: None, tmp_path: Path, staff_user: User
) -> None:
    # given a finished public tournament of eight bots
    tournament = make_tournament(
        BotPlayerFactory.create_batch(8),
        stages=[{"format": "swiss", "table_size": 4, "rounds": 1}],
    )
    services.tournament_start(tournament=tournament)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    # the writes are called as a superuser, so that they run their services, not only refuse
    token = Token.objects.create(user=staff_user)
    env = server_env()
    # the fuzzer is one client: the throttles must not turn its requests into 429s
    env.update(DURAK_API_RATE_ANON="off", DURAK_API_RATE_USER="off", DURAK_API_RATE_WRITE="off")
    with asgi_server(env) as address:
        # when schemathesis runs the schema's every operation against the live server
        run = subprocess.run(
            [
                str(Path(sys.executable).with_name("schemathesis")),
                "run",
                f"http://{address}/api/v1/schema/",
                "--checks",
                CHECKS,
                "--max-examples",
                str(EXAMPLES),
                "--generation-deterministic",
                "--header",
                f"Authorization: Token {token.key}",
                "--request-timeout",
                "20",
                "--report",
                "junit",
                "--report-dir",
                str(tmp_path),
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=600,
        )
    # then nothing failed
    assert run.returncode == 0, run.stdout[-8000:] + run.stderr[-2000:]
