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
  one from its body) and answers ``If-None-Match`` with ``304``; one that sends
  ``Last-Modified`` (a tournament's reads) answers ``If-Modified-Since`` with ``304`` too, when
  it comes without ``If-None-Match`` (:meth:`ContractView.conditional`).

**Refusals, per operation.** :class:`ContractSchema` (``DEFAULT_SCHEMA_CLASS``) documents, for
each operation and each status it may answer, the ``code`` values it may send: an ``enum`` per
response (``{"allOf": [Error, {"code": {"enum": [...]}}]}``), never a list shared by all. The
codes come from two places (:func:`operation_errors`):

- **derived** from what the view is, so a new view gets them without doing anything: ``400
  invalid_parameters`` always (the strict query); ``parse_error`` (400), ``unsupported_media_type``
  (415) and ``invalid`` (422) when the operation takes a body; ``401 authentication_failed``
  when it takes a token (a wrong one is refused before anything else); ``401/403
  not_authenticated`` and ``403 permission_denied`` when its permissions can refuse (a read under
  ``IsAuthenticatedOrReadOnly`` cannot); ``403 permission_denied`` on a write that takes the
  session (CSRF); ``404 not_found`` when its path has a parameter; ``400 invalid``, ``409
  idempotency_key_in_use`` and ``422 idempotency_key_reused`` when its handler is
  ``@idempotent`` (whose ``Idempotency-Key`` header and ``Idempotent-Replayed`` answer header
  are then added too); ``429 throttled`` when it has throttles; ``503 unavailable`` always;
  a status listed in the view's ``extend_schema(responses=...)`` with :data:`DEFAULT_CODES`;
- **declared** by the view for what its own work (its services) refuses:
  ``error_codes = {409: ("wrong_status",), 422: ("invalid_result",)}`` on the class (every
  method), or ``@refuses({409: (...)})`` on one handler. Each code must be in the catalogue
  :data:`ERROR_CODES` (a test checks it, and that every ``ServiceError`` the API can raise is).

The schema's answer is also the rule at run time: with ``API_CHECK_ERROR_CODES`` on (the tests,
the fuzzer's server), a refusal whose ``(status, code)`` the operation does not declare raises
:class:`UndeclaredErrorCode` naming the view and what to add, so a test that provokes it fails.

The headers, per operation: ``Accept-Language`` taken by all, ``If-None-Match`` and
``If-Modified-Since`` by reads; ``ETag`` (and ``Last-Modified``) on a read's ``200`` and a
``304``; ``Retry-After`` on ``429`` and ``503``; ``RateLimit-*`` on every answer of a throttled
operation; ``Idempotent-Replayed`` on an idempotent write's answers.

**Links.** :func:`add_links` (a drf-spectacular postprocessing hook) adds OpenAPI ``links`` from
:data:`LINKS` (tournament → rounds, standings, results; round → its detail; entry → withdraw,
check-in; result → confirm, reject...), for clients and for schemathesis's stateful phase.
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, TypeVar

from django.conf import settings
from django.http import HttpResponseBase
from django.utils.cache import get_conditional_response, patch_vary_headers
from django.utils.http import parse_http_date_safe, quote_etag
from django.utils.translation import gettext, ngettext
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers, status
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.permissions import AllowAny, IsAuthenticatedOrReadOnly
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
    403: ("permission_denied", "forbidden", "not_authenticated", "token_scope"),
    404: ("not_found",),
    415: ("unsupported_media_type",),
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
        "referee_plays",
        "registration_refused",
        "invalid_result",
        "awards_failed",
        "idempotency_key_reused",
    ),
    410: ("events_expired",),
    429: ("throttled",),
    503: ("unavailable",),
}
ERROR_TEXT = {
    400: "The request cannot be read: a query parameter the operation does not take or a "
    "value not of its type (`invalid_parameters`, each named in `fields`), a body that is not "
    "JSON (`parse_error`), a malformed header (`invalid`).",
    401: "No credentials, or wrong ones.",
    403: "Not yours to do, or a `read` token on a write (`token_scope`).",
    404: "No such object, or not yours to see.",
    415: "The body is not JSON (`Content-Type` must be `application/json`).",
    409: "The event's state refuses it (registration closed, a round already paired, a result "
    "already in force...): the same request may pass another time.",
    422: "The request was read, and its values break a rule (`fields` names them), or its "
    "`Idempotency-Key` was used for another request (`idempotency_key_reused`).",
    410: "The events after the `since` asked for are no longer kept (or predate the event "
    "log): read the current state over REST, then follow the log from its `version`.",
    429: "Too many requests: `Retry-After` says when to come back.",
    503: "The database is briefly out of reach: nothing was done; `Retry-After` says when to "
    "try again.",
}
#: The code an operation answers for a status it documents without naming codes.
DEFAULT_CODES: dict[int, tuple[str, ...]] = {
    400: ("invalid_parameters",),
    401: ("not_authenticated", "authentication_failed"),
    403: ("permission_denied",),
    404: ("not_found",),
    409: ("conflict",),
    415: ("unsupported_media_type",),
    422: ("invalid",),
    429: ("throttled",),
    503: ("unavailable",),
}

RATE_LIMIT_HEADERS = ("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset")
REPLAYED_HEADER = "Idempotent-Replayed"
IDEMPOTENCY_HEADER = "Idempotency-Key"
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


def error_responses(*codes: int) -> dict[int, OpenApiResponse]:
    """Refusals an operation documents beside those derived (each gets its status's
    :data:`DEFAULT_CODES`; the schema replaces each with its own enum of codes)."""
    return {code: OpenApiResponse(ErrorSerializer, description=ERROR_TEXT[code]) for code in codes}


ErrorCodes = Mapping[int, Sequence[str]]
F = TypeVar("F", bound=Callable[..., Any])


def refuses(codes: ErrorCodes) -> Callable[[F], F]:
    """Declare on one handler (``post``...) the codes its own work may answer, by status, on
    top of its view's ``error_codes`` (see the module)."""

    def mark(handler: F) -> F:
        handler.error_codes = codes  # type: ignore[attr-defined]
        return handler

    return mark


class UndeclaredErrorCode(AssertionError):
    """An operation answered a refusal its schema does not declare (``API_CHECK_ERROR_CODES``)."""


# --- the schema --------------------------------------------------------------------------------


class _Declared:
    """The query parameters and the refusals of each (view, method), as the schema's generation
    records them."""

    def __init__(self) -> None:
        self.parameters: dict[tuple[type[Any], str], dict[str, dict[str, Any]]] = {}
        self.errors: dict[tuple[type[Any], str], dict[int, tuple[str, ...]]] = {}
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
IDEMPOTENCY_DOC = (
    "Up to 100 printable ASCII characters, new for each write (a UUID). The same key with the "
    "same method, path and body, sent again by the same caller, gets the first answer again "
    f"(with `{REPLAYED_HEADER}: true`) and changes nothing; the same key with another request "
    "is a 422 `idempotency_key_reused`. A 400, a 422 or a 5xx is not kept."
)
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


def handler_of(view: type[Any], method: str) -> Callable[..., Any] | None:
    handler: Callable[..., Any] | None = getattr(view, method.lower(), None)
    return handler


def is_idempotent(view: type[Any], method: str) -> bool:
    """Whether ``view``'s handler of ``method`` is ``@idempotent`` (it marks its wrapper)."""
    return bool(getattr(handler_of(view, method), "idempotent", False))


def operation_errors(
    view: APIView, method: str, *, path: str, takes_body: bool, documented: Sequence[int] = ()
) -> dict[int, tuple[str, ...]]:
    """The refusals, ``{status: codes}``, of ``view``'s operation ``method`` at ``path``: derived
    from what the view is, and what it declares (see the module)."""
    method = method.upper()
    errors: dict[int, list[str]] = {}

    def add(status_code: int, *codes: str) -> None:
        known = errors.setdefault(status_code, [])
        known.extend(code for code in codes if code not in known)

    add(400, "invalid_parameters")
    if takes_body:
        add(400, "parse_error")
        add(415, "unsupported_media_type")
        add(422, "invalid")
    authenticators = view.get_authenticators()
    if any(isinstance(a, TokenAuthentication) for a in authenticators):
        add(401, "authentication_failed")
        if method not in SAFE_METHODS and not getattr(view, "read_tokens_write", False):
            add(403, "token_scope")  # a read token on a write (tournaments.api.auth)
    challenge = bool(authenticators) and bool(authenticators[0].authenticate_header(None))  # type: ignore[arg-type]
    may_refuse = [
        permission
        for permission in view.get_permissions()
        if not isinstance(permission, AllowAny)
        and not (isinstance(permission, IsAuthenticatedOrReadOnly) and method in SAFE_METHODS)
    ]
    if may_refuse:
        add(401 if challenge else 403, "not_authenticated")
        add(403, "permission_denied")
    if method not in SAFE_METHODS and any(
        isinstance(a, SessionAuthentication) for a in authenticators
    ):
        add(403, "permission_denied")  # the session's CSRF check
    if "{" in path:
        add(404, "not_found")
    if is_idempotent(type(view), method):
        add(400, "invalid")
        add(409, "idempotency_key_in_use")
        add(422, "idempotency_key_reused")
    if view.get_throttles():
        add(429, "throttled")
    add(503, "unavailable")
    for status_code in documented:
        if status_code not in errors:
            add(status_code, *DEFAULT_CODES.get(status_code, ()))
    declared = [
        getattr(view, "error_codes", {}),
        getattr(handler_of(type(view), method), "error_codes", {}),
    ]
    for codes in declared:
        for status_code, names in codes.items():
            add(status_code, *names)
    return {code: tuple(errors[code]) for code in sorted(errors) if errors[code]}


class ContractSchema(AutoSchema):
    """drf-spectacular's schema of an operation, with what every view of the API shares."""

    def get_operation(self, *args: Any, **kwargs: Any) -> dict[str, Any] | None:
        operation: dict[str, Any] | None = super().get_operation(*args, **kwargs)
        if operation is None:
            return None
        parameters = operation.setdefault("parameters", [])
        key = (type(self.view), self.method)
        _declared.parameters[key] = {
            p["name"]: p.get("schema", {}) for p in parameters if p["in"] == "query"
        }
        reading = self.method == "GET"
        idempotent = is_idempotent(type(self.view), self.method)
        taken = {p["name"] for p in parameters if p["in"] == "header"}
        if idempotent and IDEMPOTENCY_HEADER not in taken:
            parameters.append(
                {"in": "header", "name": IDEMPOTENCY_HEADER, "required": False}
                | {"schema": {"type": "string"}, "description": IDEMPOTENCY_DOC}
            )
        for name, text in REQUEST_HEADERS.items():
            if (reading or name == "Accept-Language") and name not in taken:
                parameters.append(
                    {"in": "header", "name": name, "required": False, "schema": {"type": "string"}}
                    | {"description": text}
                )
        responses: dict[str, Any] = operation["responses"]
        documented = [int(code) for code in responses if code.isdigit() and int(code) >= 400]
        errors = operation_errors(
            self.view,
            self.method,
            path=self.path,
            takes_body="requestBody" in operation,
            documented=documented,
        )
        _declared.errors[key] = errors
        for status_code in documented:
            del responses[str(status_code)]
        for status_code, codes in errors.items():
            responses[str(status_code)] = self._error_response(status_code, codes)
        throttled = 429 in errors
        for code, response in responses.items():
            headers = response.setdefault("headers", {})
            if throttled:
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
                    **(RATE_LIMIT_DOCS if throttled else {}),
                },
            }
        operation["responses"] = dict(sorted(responses.items()))
        return operation

    def _error_response(self, status_code: int, codes: Sequence[str]) -> dict[str, Any]:
        response: dict[str, Any] = self._get_response_for_code(  # type: ignore[no-untyped-call]
            OpenApiResponse(ErrorSerializer, description=ERROR_TEXT[status_code]),
            str(status_code),
            media_types=["application/json"],
        )
        content = response["content"]["application/json"]
        content["schema"] = {
            "allOf": [
                content["schema"],
                {
                    "type": "object",
                    "properties": {"code": {"type": "string", "enum": list(codes)}},
                },
            ]
        }
        return response


def _generated(key: tuple[type[Any], str]) -> None:
    """The schema, generated once per process on the first need (it records each operation)."""
    if key not in _declared.parameters and not _declared.complete:
        with _declared.lock:
            if not _declared.complete:
                generator = SchemaGenerator()  # type: ignore[no-untyped-call]
                generator.get_schema(request=None, public=True)  # type: ignore[no-untyped-call]
                _declared.complete = True


def query_parameters(view: type[Any], method: str) -> dict[str, dict[str, Any]]:
    """The query parameters ``view`` declares for ``method`` in the schema: their names and
    schemas."""
    key = (view, "GET" if method == "HEAD" else method)
    _generated(key)
    return _declared.parameters.get(key, {})


def declared_errors(view: type[Any], method: str) -> dict[int, tuple[str, ...]] | None:
    """The refusals ``view``'s operation ``method`` declares in the schema (None: no such
    operation in the schema)."""
    key = (view, "GET" if method == "HEAD" else method)
    _generated(key)
    return _declared.errors.get(key)


def check_error_code(view: APIView, request: Request, response: HttpResponseBase) -> None:
    """Raise :class:`UndeclaredErrorCode` if ``response`` is a refusal its operation's schema
    does not declare."""
    data = getattr(response, "data", None)
    if response.status_code < 400 or not isinstance(data, dict) or "code" not in data:
        return
    method = request.method or "GET"
    if method == "OPTIONS" or handler_of(type(view), method) is None:
        return  # 405 for a method the view has not: no operation of the schema
    declared = declared_errors(type(view), method)
    if declared is None:
        return
    status_code, code = response.status_code, str(data["code"])
    if code not in declared.get(status_code, ()):
        name = type(view).__name__
        raise UndeclaredErrorCode(
            f"{name} ({method} {request.path}) answered {status_code} {code!r}, which its "
            f"schema does not declare ({status_code}: {declared.get(status_code, ())}): add "
            f"error_codes = {{{status_code}: ({code!r},)}} to {name}, or "
            f"@refuses({{{status_code}: ({code!r},)}}) to its handler "
            "(tournaments/api/contract.py), and the code to ERROR_CODES if it is new."
        )


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
    ``RateLimit`` headers, an ``ETag`` on every successful read, its refusals declared."""

    #: The codes its own work (its services) may refuse with, by status, for every method
    #: (``@refuses`` on a handler for one): the derived ones need no declaration (module doc).
    error_codes: ClassVar[ErrorCodes] = {}

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
            and isinstance(response, Response)
        ):
            if not response.has_header("ETag"):
                response = self.tagged(request, response)
            elif response.has_header("Last-Modified"):
                # A view that sends its own ETag (it answered If-None-Match already) and a
                # Last-Modified: If-Modified-Since is answered here, whichever view it is.
                response = self.conditional(request, response, response["ETag"])
        if settings.API_CHECK_ERROR_CODES:
            check_error_code(self, request, response)
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
        return self.conditional(request, response, response["ETag"])

    def conditional(self, request: Request, response: Response, etag: str) -> Response:
        """``response``, or a ``304`` if the caller's copy is current: by ``If-None-Match``, or
        without one by ``If-Modified-Since`` where the answer has a ``Last-Modified`` (RFC 9110
        13.2.2, Django's ``get_conditional_response``)."""
        last_modified = parse_http_date_safe(response.get("Last-Modified", ""))
        not_modified: HttpResponseBase | None = get_conditional_response(
            request, etag=etag, last_modified=last_modified, response=response
        )
        return not_modified if not_modified is not None else response  # type: ignore[return-value]
