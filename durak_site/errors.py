"""The one error shape of the service: ``{"code": "...", "message": "...", "fields": {...}}``
(``fields`` only when particular fields are to blame).

The REST API, the WebSocket and the engine protocol all answer refusals this way, so a client
handles errors in one place.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import models
from django.http import Http404
from django.utils.translation import gettext
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
    http_status: int = status.HTTP_400_BAD_REQUEST

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


class NotFound(ServiceError):
    code = "not_found"
    http_status = status.HTTP_404_NOT_FOUND


class Conflict(ServiceError):
    code = "conflict"
    http_status = status.HTTP_409_CONFLICT


class Forbidden(ServiceError):
    code = "forbidden"
    http_status = status.HTTP_403_FORBIDDEN


def status_name(choices: type[models.Choices], value: Any) -> str:
    """A status as a refusal names it mid-sentence: its label in the active language,
    lowercased (``"the tournament is running"``, «статус турнира — «идёт»»)."""
    return str(choices(value).label).lower()


def error_body(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"code": code, "message": message, **extra}


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler, reshaped into ``{"code", "message"}`` (field errors kept under ``fields``)."""
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
        response.data = error_body(
            "invalid", gettext("The request is not valid."), fields=exc.detail
        )
    elif isinstance(exc, exceptions.APIException):
        codes = exc.get_codes()
        code = codes if isinstance(codes, str) else exc.default_code
        response.data = error_body(str(code), str(exc.detail))
    return response
