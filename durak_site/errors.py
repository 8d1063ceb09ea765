"""The one error shape of the service: ``{"code": "...", "message": "...", "fields": {...}}``
(``fields`` only when particular fields are to blame).

The REST API, the WebSocket and the engine protocol all answer refusals this way, so a client
handles errors in one place.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import InterfaceError, OperationalError, models
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.utils.html import escape
from django.utils.translation import gettext, ngettext
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler


class ServiceError(Exception):
    """A refusal meant for the user: a stable ``code`` and a readable message.

    Services raise subclasses; views and consumers turn them into the error shape. The message
    is in the language active where it is raised (``gettext`` then, not lazily): the request's,
    as ``LocaleMiddleware`` or the live table's socket chose it, else the site's default.
    """

    code = "invalid"
    #: 422 by default: the request was understood and its values break a rule. A refusal for
    #: the state of what it acts on is a :class:`Conflict` (409); 400 is kept for requests
    #: that cannot be read at all (bad JSON, unknown query parameters).
    http_status: int = status.HTTP_422_UNPROCESSABLE_ENTITY
    #: Whether an API operation may answer with it (its codes are then in the schema's enums,
    #: ``tournaments.api.contract.ERROR_CODES``): False for a refusal only a page shows.
    api: bool = True

    def __init__(
        self, message: str, *, code: str | None = None, fields: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        # Field errors in DRF's shape ({"stages": {2: {"series": {"target": [...]}}}}), so that
        # a form or the API shows each on its field; empty when no one field is to blame.
        self.fields: dict[str, Any] = fields or {}

    def as_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.fields:
            body["fields"] = self.fields
        return body


class BadRequest(ServiceError):
    """A request that cannot be read as one: a malformed header, a query parameter that the
    operation does not take or whose value is not of its type."""

    code = "bad_request"
    http_status = status.HTTP_400_BAD_REQUEST


class NotFound(ServiceError):
    code = "not_found"
    http_status = status.HTTP_404_NOT_FOUND


class Conflict(ServiceError):
    code = "conflict"
    http_status = status.HTTP_409_CONFLICT


class Forbidden(ServiceError):
    code = "forbidden"
    http_status = status.HTTP_403_FORBIDDEN


class Unavailable(ServiceError):
    """The database cannot be reached just now (restarting, its connections exhausted): nothing
    was done, and the same request sent again in a few seconds may well succeed."""

    code = "unavailable"
    http_status = status.HTTP_503_SERVICE_UNAVAILABLE

    def __init__(self) -> None:
        super().__init__(gettext("the service is briefly unavailable: try again in a few seconds"))


#: What Django raises when the database is out of reach or a connection to it broke: a
#: PostgreSQL restarting, a connection pool that timed out. Transient, the caller's to retry:
#: answered with :class:`Unavailable` (503, ``unavailable``), never as a server error.
DATABASE_DOWN: tuple[type[Exception], ...] = (OperationalError, InterfaceError)

#: Seconds a client is asked to wait before trying again (``Retry-After``).
RETRY_AFTER = 5


log = logging.getLogger(__name__)


class DatabaseDownMiddleware:
    """A page or an API view that fails because the database is out of reach answers 503 with
    ``Retry-After`` (JSON ``unavailable`` under ``/api/``, a short page elsewhere, neither
    touching the database), not a server error's page: the outage is reported by ``/healthz``
    and logged once per request here, and the service recovers by itself when the database is
    back (the connection pool reconnects). The REST API's views answer the same through
    :func:`api_exception_handler`."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exc: Exception) -> HttpResponse | None:
        if not isinstance(exc, DATABASE_DOWN):
            return None
        log.warning("%s %s: the database is unavailable (%s)", request.method, request.path, exc)
        unavailable = Unavailable()
        response: HttpResponse
        if request.path.startswith("/api/"):
            response = JsonResponse(unavailable.as_dict(), status=unavailable.http_status)
        else:
            text = escape(unavailable.message)
            response = HttpResponse(
                f"<!doctype html><meta charset=utf-8><title>503</title><h1>503</h1><p>{text}</p>",
                status=unavailable.http_status,
            )
        response["Retry-After"] = str(RETRY_AFTER)
        return response


def status_name(choices: type[models.Choices], value: Any) -> str:
    """A status as a refusal names it mid-sentence: its label in the active language,
    lowercased (``"the tournament is running"``, «статус турнира — «идёт»»)."""
    return str(choices(value).label).lower()


def error_body(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"code": code, "message": message, **extra}


def throttled_message(wait: float | None) -> str:
    if wait is None:
        return gettext("Too many requests: try again later.")
    seconds = max(1, math.ceil(wait))
    return ngettext(
        "Too many requests: try again in %(seconds)d second.",
        "Too many requests: try again in %(seconds)d seconds.",
        seconds,
    ) % {"seconds": seconds}


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler, reshaped into ``{"code", "message"}`` (field errors kept under ``fields``),
    every message in the request's language."""
    if isinstance(exc, DATABASE_DOWN):
        exc = Unavailable()
        headers = {"Retry-After": str(RETRY_AFTER)}
        return Response(exc.as_dict(), status=exc.http_status, headers=headers)
    if isinstance(exc, ServiceError):
        return Response(exc.as_dict(), status=exc.http_status)
    # Django's own refusals, in DRF's terms, so that they get the one error shape too.
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(
            detail=exc.message_dict if hasattr(exc, "error_dict") else exc.messages
        )
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        # A body that was read and whose values break a rule: 422 (400 is for what cannot be
        # read at all: DRF's ParseError, our BadRequest).
        response.status_code = status.HTTP_422_UNPROCESSABLE_ENTITY
        response.data = error_body(
            "invalid", gettext("The request is not valid."), fields=exc.detail
        )
    elif isinstance(exc, exceptions.Throttled):
        # DRF's own message is two sentences from two catalogues (its Russian one has no
        # translation of the second): ours is one, in the request's language.
        wait: float | None = exc.wait  # type: ignore[attr-defined]  # not in the stubs
        response.data = error_body("throttled", throttled_message(wait))
    elif isinstance(exc, exceptions.APIException):
        codes = exc.get_codes()
        code = codes if isinstance(codes, str) else exc.default_code
        response.data = error_body(str(code), str(exc.detail))
    return response
