"""The API's contract, enforced and documented from one declaration.

Each operation's schema (drf-spectacular's, from the views' ``extend_schema``, their filter sets
and their paginators) is the list of what it takes; :class:`ContractView`, the base of every
view of the API, reads its query parameters from that same schema (:func:`query_parameters`),
so what is documented and what is accepted cannot drift:

- a query parameter the operation does not declare, or a value that is not of its declared type
  and bounds (``page_size=-1``, ``page_size=abc``, ``page_size`` above the maximum), is a 400
  ``invalid_parameters`` naming each one (nothing is ignored or silently clamped);
- every answer of a throttled view carries ``RateLimit-Limit``, ``RateLimit-Remaining`` and
  ``RateLimit-Reset`` (draft-ietf-httpapi-ratelimit-headers) of the tightest throttle in use;
- every successful ``GET`` carries an ``ETag`` (a view that has no version to make it from gets
  one from its body) and answers ``If-None-Match`` with ``304``.

:class:`ContractSchema` (``DEFAULT_SCHEMA_CLASS``) adds to every operation what the views share:
its refusals with their codes (:data:`ERROR_CODES`, an enum per status), the headers the API
takes (``Accept-Language``, ``If-None-Match``, ``If-Modified-Since``) and sends (``ETag``,
``Last-Modified``, ``Retry-After``, ``RateLimit-*``, ``Idempotent-Replayed``), and ``304``.
"""

from __future__ import annotations

import hashlib
import math
import threading
from typing import Any

from django.http import HttpResponseBase
from django.utils.cache import get_conditional_response, patch_vary_headers
from django.utils.http import quote_etag
from django.utils.translation import gettext, ngettext
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiResponse, extend_schema_field
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle
from rest_framework.views import APIView

from durak_site.errors import BadRequest

#: Every ``code`` an API operation may answer, by status: the schema's enum for each (a test
#: checks that the service errors the API can raise are all listed).
ERROR_CODES: dict[int, tuple[str, ...]] = {
    400: ("invalid_parameters", "parse_error", "invalid", "bad_request"),
    401: ("not_authenticated", "authentication_failed"),
    403: ("permission_denied", "forbidden"),
    404: ("not_found",),
    409: (
        "conflict",
        "wrong_status",
        "registration_refused",
        "own_event",
        "invalid_result",
        "check_in_not_required",
        "reason_required",
        "repair_needed",
        "round_started",
        "result_final",
        "idempotency_key_in_use",
    ),
    422: (
        "invalid",
        "invalid_tournament",
        "invalid_configuration",
        "registration_refused",
        "invalid_result",
        "awards_failed",
        "idempotency_key_reused",
    ),
    429: ("throttled",),
    503: ("unavailable",),
}
ERROR_TEXT = {
    400: "The request cannot be read: a query parameter the operation does not take or a "
    "value not of its type (`invalid_parameters`, each named in `fields`), a body that is not "
    "JSON (`parse_error`), a malformed header (`invalid`).",
    401: "No credentials, or wrong ones.",
    403: "Not yours to do.",
    404: "No such object, or not yours to see.",
    409: "The event's state refuses it (registration closed, a round already paired, a result "
    "already in force...): the same request may pass another time.",
    422: "The request was read, and its values break a rule (`fields` names them), or its "
    "`Idempotency-Key` was used for another request (`idempotency_key_reused`).",
    429: "Too many requests: `Retry-After` says when to come back.",
    503: "The database is briefly out of reach: nothing was done; `Retry-After` says when to "
    "try again.",
}
#: Refusals any operation may answer, whatever it declares itself.
COMMON_ERRORS = (400, 429, 503)

RATE_LIMIT_HEADERS = ("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset")
REPLAYED_HEADER = "Idempotent-Replayed"
VARY = ("Accept", "Accept-Language", "Authorization", "Cookie")


class ErrorSerializer(serializers.Serializer[Any]):
    """Every refusal of the API (and of the live table's WebSocket)."""

    code = serializers.CharField(help_text="A stable code, e.g. `not_found`, `forbidden`.")
    message = serializers.CharField(help_text="What went wrong, in the request's language.")
    # The serializer's metaclass takes declared fields out of the class, so this does not
    # shadow ``Serializer.fields`` at run time; the stubs cannot know that.
    fields = serializers.DictField(  # type: ignore[assignment]
        required=False, help_text="Field errors, by field (nested as the request body)."
    )


def _error_serializer(code: int) -> type[ErrorSerializer]:
    codes = list(ERROR_CODES[code])
    # A subclass per status: ``extend_schema_field`` marks the class it is given.
    field = extend_schema_field({"type": "string", "enum": codes})(
        type(f"Error{code}Code", (serializers.CharField,), {"__module__": __name__})
    )
    return type(
        f"Error{code}Serializer",
        (ErrorSerializer,),
        {
            "__module__": __name__,
            "__doc__": f"A {code} refusal: `code` is one of {', '.join(codes)}.",
            "code": field(help_text="A stable code, one of the enum."),
        },
    )


#: One schema component per status (``Error409``...), each with its codes' enum.
ERROR_SERIALIZERS = {code: _error_serializer(code) for code in ERROR_CODES}


def error_responses(*codes: int) -> dict[int, OpenApiResponse]:
    """The documented refusals of an operation, each with its status's codes."""
    return {
        code: OpenApiResponse(ERROR_SERIALIZERS[code], description=ERROR_TEXT[code])
        for code in codes
    }


# --- the schema --------------------------------------------------------------------------------


class _Declared:
    """The query parameters of each (view, method), as the schema's generation records them."""

    def __init__(self) -> None:
        self.parameters: dict[tuple[type[Any], str], dict[str, dict[str, Any]]] = {}
        self.complete = False
        self.lock = threading.Lock()


_declared = _Declared()


def _header(description: str, *, required: bool = False, kind: str = "string") -> dict[str, Any]:
    return {"schema": {"type": kind}, "description": description, "required": required}


RATE_LIMIT_DOCS = {
    "RateLimit-Limit": _header("Requests allowed in the tightest window in use.", kind="integer"),
    "RateLimit-Remaining": _header("Requests left in that window.", kind="integer"),
    "RateLimit-Reset": _header("Seconds until that window has room again.", kind="integer"),
}
REQUEST_HEADERS = {
    "Accept-Language": "`ru` for Russian messages; anything else (or none): English.",
    "If-None-Match": "An `ETag` of an earlier answer: `304` if it is still current.",
    "If-Modified-Since": "A `Last-Modified` of an earlier answer: `304` if nothing changed "
    "since (where the operation sends `Last-Modified`; `If-None-Match` wins).",
}


class ContractSchema(AutoSchema):
    """drf-spectacular's schema of an operation, with what every view of the API shares."""

    def get_operation(self, *args: Any, **kwargs: Any) -> dict[str, Any] | None:
        operation: dict[str, Any] | None = super().get_operation(*args, **kwargs)
        if operation is None:
            return None
        parameters = operation.setdefault("parameters", [])
        _declared.parameters[(type(self.view), self.method)] = {
            p["name"]: p.get("schema", {}) for p in parameters if p["in"] == "query"
        }
        reading = self.method == "GET"
        for name, text in REQUEST_HEADERS.items():
            if reading or name == "Accept-Language":
                parameters.append(
                    {"in": "header", "name": name, "required": False, "schema": {"type": "string"}}
                    | {"description": text}
                )
        responses: dict[str, Any] = operation["responses"]
        for error in COMMON_ERRORS:
            if str(error) not in responses:
                responses[str(error)] = self._get_response_for_code(  # type: ignore[no-untyped-call]
                    error_responses(error)[error], str(error), media_types=["application/json"]
                )
        idempotent = any(p["name"] == "Idempotency-Key" for p in parameters)
        for code, response in responses.items():
            headers = response.setdefault("headers", {})
            headers.update(RATE_LIMIT_DOCS)
            if code in ("429", "503"):
                headers["Retry-After"] = _header(
                    "Seconds to wait before trying again.", required=True, kind="integer"
                )
            if reading and code == "200":
                headers["ETag"] = _header("The answer's version (weak).", required=True)
                headers["Last-Modified"] = _header(
                    "When the tournament's data last changed (tournament reads)."
                )
            if idempotent and code.startswith(("2", "4")):
                headers[REPLAYED_HEADER] = _header(
                    "`true` on an answer replayed for an `Idempotency-Key` seen before."
                )
        if reading:
            responses["304"] = {
                "description": "Not modified: the copy the `If-None-Match` (or "
                "`If-Modified-Since`) names is current. No body.",
                "headers": {
                    "ETag": _header("The answer's version.", required=True),
                    # (not on a 304 of the ASGI front, which counts nothing)
                    **RATE_LIMIT_DOCS,
                },
            }
        return operation


def query_parameters(view: type[Any], method: str) -> dict[str, dict[str, Any]]:
    """The query parameters ``view`` declares for ``method`` in the schema: their names and
    schemas. The schema is generated once per process, on the first need."""
    key = (view, "GET" if method == "HEAD" else method)
    if key not in _declared.parameters and not _declared.complete:
        with _declared.lock:
            if not _declared.complete:
                generator = SchemaGenerator()  # type: ignore[no-untyped-call]
                generator.get_schema(request=None, public=True)  # type: ignore[no-untyped-call]
                _declared.complete = True
    return _declared.parameters.get(key, {})


# --- the views ---------------------------------------------------------------------------------


def _value_problem(value: str, schema: dict[str, Any]) -> str | None:
    """What is wrong with ``value`` for a parameter of ``schema`` (None: nothing)."""
    if "enum" in schema and value not in [str(v) for v in schema["enum"]]:
        return gettext("one of: %(values)s") % {"values": ", ".join(map(str, schema["enum"]))}
    if schema.get("type") != "integer":
        return None
    try:
        number = int(value)
    except ValueError:
        return gettext("a whole number is expected")
    if "minimum" in schema and number < schema["minimum"]:
        return gettext("at least %(minimum)d") % {"minimum": schema["minimum"]}
    if "maximum" in schema and number > schema["maximum"]:
        return gettext("at most %(maximum)d") % {"maximum": schema["maximum"]}
    return None


def invalid_parameters(fields: dict[str, Any]) -> BadRequest:
    names = sorted(fields)
    message = ngettext(
        "The query parameter %(names)s is not valid.",
        "The query parameters %(names)s are not valid.",
        len(names),
    ) % {"names": ", ".join(names)}
    return BadRequest(message, code="invalid_parameters", fields=fields)


def _rate_limit(throttles: list[BaseThrottle]) -> tuple[int, int, int] | None:
    """(limit, remaining, reset seconds) of the tightest of ``throttles`` that counted the
    request; None when none did (anonymous callers skip the user's, a rate may be off)."""
    windows = []
    for throttle in throttles:
        history = getattr(throttle, "history", None)
        if not isinstance(throttle, SimpleRateThrottle) or history is None:
            continue
        # (set by SimpleRateThrottle's __init__ from its rate; the stubs do not declare them)
        limit: int = getattr(throttle, "num_requests", None) or 0
        duration: int = getattr(throttle, "duration", None) or 0
        remaining = max(0, limit - len(history))
        reset = math.ceil(history[-1] + duration - throttle.now) if history else 0
        windows.append((remaining, limit, max(0, reset)))
    if not windows:
        return None
    remaining, limit, reset = min(windows)
    return limit, remaining, reset


class ContractView(APIView):
    """The base of every view of the API (a test checks it): strict query parameters,
    ``RateLimit`` headers, an ``ETag`` on every successful read."""

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        self.check_query(request)

    def check_query(self, request: Request) -> None:
        if request.method == "OPTIONS":
            return
        declared = query_parameters(type(self), request.method or "GET")
        fields: dict[str, list[str]] = {}
        for name in request.query_params:
            if name not in declared:
                fields[name] = [
                    gettext("unknown parameter; this operation takes: %(names)s")
                    % {"names": ", ".join(sorted(declared))}
                    if declared
                    else gettext("unknown parameter; this operation takes none")
                ]
                continue
            for value in request.query_params.getlist(name):
                problem = _value_problem(value, declared[name])
                if problem:
                    fields[name] = [problem]
        if not fields and getattr(self, "filterset_class", None) is not None:
            # The filters' own checks (dates, choices), as a query's problems, before any query.
            queryset = self.get_queryset()  # type: ignore[attr-defined]  # a GenericAPIView's
            filterset = DjangoFilterBackend().get_filterset(request, queryset, self)
            if filterset is not None and not filterset.is_valid():
                fields = {name: list(errors) for name, errors in filterset.errors.items()}
        if fields:
            raise invalid_parameters(fields)

    def check_throttles(self, request: Request) -> None:
        # DRF's, keeping the throttles that counted the request for the RateLimit headers.
        self.used_throttles: list[BaseThrottle] = []
        waits = []
        for throttle in self.get_throttles():
            self.used_throttles.append(throttle)
            if not throttle.allow_request(request, self):
                waits.append(throttle.wait())
        if waits:
            known = [wait for wait in waits if wait is not None]
            self.throttled(request, max(known, default=None))  # type: ignore[arg-type]

    def finalize_response(
        self, request: Request, response: Response, *args: Any, **kwargs: Any
    ) -> Response:
        response = super().finalize_response(request, response, *args, **kwargs)
        if (
            request.method in ("GET", "HEAD")
            and response.status_code == status.HTTP_200_OK
            and not response.has_header("ETag")
            and isinstance(response, Response)
        ):
            response = self.tagged(request, response)
        window = _rate_limit(getattr(self, "used_throttles", []))
        if window is not None:
            for name, value in zip(RATE_LIMIT_HEADERS, window, strict=True):
                response[name] = str(value)
        return response

    def tagged(self, request: Request, response: Response) -> Response:
        """``response`` with an ETag from its body: a ``304`` if the caller's copy is it."""
        response.render()
        digest = hashlib.sha256(response.content).hexdigest()[:24]
        response["ETag"] = "W/" + quote_etag(digest)
        patch_vary_headers(response, VARY)
        not_modified: HttpResponseBase | None = get_conditional_response(
            request, etag=response["ETag"], response=response
        )
        return not_modified if not_modified is not None else response  # type: ignore[return-value]
