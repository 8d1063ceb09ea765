"""Schemathesis fuzzes the whole OpenAPI schema against the real ASGI server: every operation,
a bounded number of generated requests each (good and bad input, no credentials), and every
answer must be no 5xx and match the schema (status code, content type, headers, body, and a
refusal's code among those its operation declares: the server checks it). Then its stateful
phase follows the schema's OpenAPI links, with the token and anonymously.

One finished tournament of bots is in the database, so the list endpoints have rows to
describe; generated slugs and ids mostly miss, and the documented 404 must match too. The
requests carry a superuser's token, so that the writes run their services on what they are
given instead of stopping at the login.
"""

from __future__ import annotations

import subprocess
import sys
import time
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
#: The stateful phase follows the schema's OpenAPI links (tournaments/api/openapi_links.py) from one
#: answer to the next call: about a hundred scenarios of up to 10 steps, anonymous and with the
#: token (about 20 s each here, the schema's loading included). With 6 steps and 20 examples it
#: followed 1 to 4 of the 93 links; with these, 21 with the token and 12 anonymously (the test
#: prints schemathesis's "API Links: N covered" line of each run).
STATEFUL = """
[phases.stateful]
max-steps = {steps}

[phases.stateful.generation]
max-examples = {examples}
"""
STATEFUL_STEPS = 10
STATEFUL_EXAMPLES = 60


def schemathesis(address: str, tmp_path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            str(Path(sys.executable).with_name("schemathesis")),
            "--config-file",
            str(tmp_path / "schemathesis.toml"),
            "run",
            f"http://{address}/api/v1/schema/",
            "--checks",
            CHECKS,
            "--generation-deterministic",
            "--request-timeout",
            "20",
            "--report",
            "junit",
            "--report-dir",
            str(tmp_path),
            *options,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.timeout(600)  # three runs of the fuzzer on a shared CI machine: about 3 minutes here
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
    auth = ["--header", f"Authorization: Token {token.key}"]
    (tmp_path / "schemathesis.toml").write_text(
        STATEFUL.format(steps=STATEFUL_STEPS, examples=STATEFUL_EXAMPLES)
    )
    env = server_env()
    # the fuzzer is one client: the throttles must not turn its requests into 429s
    env.update(DURAK_API_RATE_ANON="off", DURAK_API_RATE_USER="off", DURAK_API_RATE_WRITE="off")
    # the NDJSON streams end after two seconds, so that the fuzzer reads each answer to its end
    env.update(DURAK_STREAM_SECONDS="2", DURAK_STREAM_KEEPALIVE_SECONDS="1")
    # a refusal an operation does not declare is a 500 there (tournaments.api.contract)
    env.update(DURAK_API_CHECK_ERROR_CODES="1")
    with asgi_server(env) as address:
        # when schemathesis runs the schema's every operation against the live server
        each = schemathesis(
            address,
            tmp_path,
            "--phases",
            "examples,coverage,fuzzing",
            "--max-examples",
            str(EXAMPLES),
            *auth,
        )
        # and follows its links, with the token and without
        started = time.monotonic()
        with_token = schemathesis(address, tmp_path, "--phases", "stateful", *auth)
        anonymous = schemathesis(address, tmp_path, "--phases", "stateful")
        stateful_seconds = time.monotonic() - started
    # then nothing failed
    for run in (each, with_token, anonymous):
        assert run.returncode == 0, (run.args[-12:], run.stdout[-8000:] + run.stderr[-2000:])
    # the stateful runs did follow links (not a phase skipped for want of them)
    for run in (with_token, anonymous):
        print(*(line for line in run.stdout.splitlines() if "link" in line.lower()), sep="\n")
        assert "Stateful" in run.stdout and "links" in run.stdout.lower(), run.stdout[-3000:]
    assert stateful_seconds < 120, stateful_seconds  # (a loaded CI machine: twice the time)
