"""``Idempotency-Key`` for the API's writes: a client that did not get the answer to a write (a
dropped connection, a timeout) sends it again with the same key and gets the same answer, and
nothing changes twice.

Decorate a write view's handler with :func:`idempotent`. A request without the header runs as
usual. With it (1 to 100 printable ASCII characters), the caller's key is claimed by inserting
its :class:`~tournaments.models.IdempotentRequest` row *first*, in the transaction that then runs
the handler and stores its answer in that row:

- a replay (the same caller, key, method, path and body: the body compared by the SHA-256 of
  its canonical JSON, so key order and spacing do not matter) gets the stored status and body
  again, with ``Idempotent-Replayed: true``, and runs nothing;
- the same key with another method, path or body is refused: 422 ``idempotency_key_reused``;
- two requests with the same key at the same time: the unique constraint on (user, key) makes
  the second insert wait for the first transaction. When it commits, the second sees the stored
  answer and replays it; if it rolls back (a 500), the second runs. Exactly one executes. (On
  SQLite writers are serialised anyway.)

Which answers are kept: everything the handler answered below 500 except 400 and 422. Those
mean the request could not be done as sent and nothing happened, so the client may correct it
and send it again under the same key. Refusals such as 403, 404 and 409 are kept and replayed,
as Stripe does, so a retry always gets the answer the lost request got. A 500 keeps nothing and
frees the key, and so does any refusal that came before the handler (401, 429: authentication and
throttling run first).
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, TypeVar

from django.db import IntegrityError, transaction
from django.http import QueryDict
from django.utils.translation import gettext
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from durak_site.errors import BadRequest, Conflict, ServiceError
from tournaments.api.renderers import FastJSONRenderer
from tournaments.models import IdempotentRequest

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
MAX_KEY_LENGTH = 100
#: The status of a claimed key whose answer is not stored yet. Never seen by another request:
#: the row is inserted and completed in one transaction.
IN_PROGRESS = 0

V = TypeVar("V", bound=APIView)
P = ParamSpec("P")
Handler = Callable[Concatenate[V, Request, P], Response]


class IdempotencyKeyReused(ServiceError):
    """The key was used for another request (method, path or body) by the same caller."""

    code = "idempotency_key_reused"
    http_status = status.HTTP_422_UNPROCESSABLE_ENTITY


class IdempotencyKeyInUse(Conflict):
    """Defensive: a claimed key without its answer (cannot be seen while the insert and the
    answer share a transaction)."""

    code = "idempotency_key_in_use"


def _canonical(data: Any) -> Any:
    if isinstance(data, QueryDict):
        return {key: data.getlist(key) for key in sorted(data.keys())}
    return data


def body_sha256(request: Request) -> str:
    """The SHA-256 of ``request``'s body as canonical JSON (keys sorted, no spaces): two bodies
    that say the same thing have the same hash. Reading ``request.data`` parses the body (a body
    that does not parse is a 400 here)."""
    canonical = json.dumps(
        _canonical(request.data),
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        default=str,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def _key(request: Request) -> str | None:
    raw = request.headers.get(HEADER)
    if raw is None:
        return None
    key = raw.strip()
    if not key or len(key) > MAX_KEY_LENGTH or not key.isascii() or not key.isprintable():
        message = gettext("An idempotency key is 1 to %(max)d printable ASCII characters.") % {
            "max": MAX_KEY_LENGTH
        }
        raise BadRequest(message, code="invalid", fields={HEADER: [message]})
    return key


def _as_json(data: Any) -> Any:
    """``data`` as plain JSON values (lazy strings, decimals, dates as the API renders them)."""
    if data is None:
        return None
    return json.loads(FastJSONRenderer().render(data))


def _replay(stored: IdempotentRequest, method: str, path: str, body: str) -> Response:
    if (stored.method, stored.path, stored.body_sha256) != (method, path, body):
        raise IdempotencyKeyReused(
            gettext(
                "This idempotency key was used for another request (%(method)s %(path)s, or "
                "another body); use a new key for a new request."
            )
            % {"method": stored.method, "path": stored.path}
        )
    if stored.status_code == IN_PROGRESS:
        raise IdempotencyKeyInUse(
            gettext("A request with this idempotency key is still running; try again shortly.")
        )
    return Response(stored.response, status=stored.status_code, headers={REPLAYED_HEADER: "true"})


#: Refusals of what was sent, not of what was done: not kept, so that the corrected request
#: can be sent again with the same key.
NOT_KEPT = {status.HTTP_400_BAD_REQUEST, status.HTTP_422_UNPROCESSABLE_ENTITY}


def _kept(response: Response) -> bool:
    return response.status_code < 500 and response.status_code not in NOT_KEPT


def idempotent(handler: Handler[V, P]) -> Handler[V, P]:
    """Make a write view's handler (``post``) honour ``Idempotency-Key`` (see the module)."""

    @functools.wraps(handler)
    def wrapper(view: V, request: Request, /, *args: P.args, **kwargs: P.kwargs) -> Response:
        key = _key(request)
        user = request.user
        if key is None or not user.is_authenticated:
            return handler(view, request, *args, **kwargs)
        method, path, body = request.method or "", request.path[:300], body_sha256(request)
        with transaction.atomic():
            try:
                with transaction.atomic():
                    claim = IdempotentRequest.objects.create(
                        user=user,
                        key=key,
                        method=method,
                        path=path,
                        body_sha256=body,
                        status_code=IN_PROGRESS,
                    )
            except IntegrityError:
                # The key is taken: by a committed request (its answer is there), or by one
                # still running, whose commit this insert has waited for.
                stored = IdempotentRequest.objects.get(user=user, key=key)
                return _replay(stored, method, path, body)
            try:
                with transaction.atomic():
                    response = handler(view, request, *args, **kwargs)
            except Exception as exc:  # the view's own answer to it (re-raised if it has none)
                response = view.handle_exception(exc)
            if not _kept(response):
                claim.delete()  # frees the key for the corrected request
                return response
            claim.status_code = response.status_code
            claim.response = _as_json(response.data)
            claim.save(update_fields=["status_code", "response"])
            return response

    # (the schema reads it: the header, the replayed answers and their codes, per operation)
    wrapper.idempotent = True  # type: ignore[attr-defined]
    return wrapper
