"""What every endpoint of the API shares.

**Reading a tournament.** :class:`TournamentReadView` finds the tournament of the URL among
those its caller may read (``visibility.tournaments_visible_to``): a private one, or a draft, is a
404 to everyone else, exactly as a tournament that does not exist.

**Conditional GET.** Every read of a tournament's data answers with a weak ``ETag`` made from the
tournament's ``version`` (bumped in the transaction of every change a reader can see), the
request's path and query and its language, and ``Last-Modified`` from ``changed_at``. A request
whose ``If-None-Match`` matches is answered ``304 Not Modified`` before the body is built: one
query (the tournament's row); so is one with no ``If-None-Match`` whose ``If-Modified-Since``
is not before ``Last-Modified``. ``Cache-Control``: a private tournament's answers are ``private``;
a finished tournament whose awards are computed may be kept 5 minutes; anything still moving is
revalidated each time (``no-cache``: the ETag makes that cheap).

**Server-side cache.** The data of an answer is kept in the shared cache (Redis on the real
stack) under its ETag, so a reader without the caller's copy costs one query (the tournament's
row) and one cache read, until the next change bumps the version.

**The front.** An anonymous conditional GET of a public tournament whose answer is current is
answered 304 before Django by the ASGI front (``tournaments.api.front``), from the tournament's
published version (``tournaments.versions``); the answers here carry the ``X-Durak-Stamp`` it
needs (it never leaves the server).

**Throttles** per anonymous IP, per token, and a tighter one for writes (settings
``DURAK_API_RATE_*``); over the rate the answer is 429 with ``Retry-After``. What every view
shares besides (strict query parameters, ``RateLimit`` headers, an ETag on every read, the
schema's codes and headers) is :mod:`~tournaments.api.contract`'s.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from typing import Any

from django.core.cache import cache
from django.http import Http404
from django.utils.http import http_date, parse_http_date_safe, quote_etag
from django.utils.translation import get_language
from rest_framework import status
from rest_framework.exceptions import NotFound
from rest_framework.pagination import CursorPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import AnonRateThrottle, BaseThrottle, UserRateThrottle

from durak_site.clientaddr import client_address
from tournaments import versions
from tournaments.api.contract import ContractView, invalid_parameters
from tournaments.models import Tournament
from tournaments.selectors import visibility

#: Finished tournaments with their awards computed change no more (corrections are refused).
SETTLED_MAX_AGE = 300
#: How long built answers stay in the shared cache (each under its version's ETag).
BUILT_SECONDS = 600
#: Marks the answer of a public tournament's read for the API's ASGI front
#: (``tournaments.api.front``) with the version it was built at; the front takes it out.
STAMP_HEADER = "X-Durak-Stamp"

logger = logging.getLogger(__name__)


class ByClientAddress(BaseThrottle):
    """Counts an anonymous caller by its address as ``durak_site.clientaddr`` takes it: never
    by an ``X-Forwarded-For`` it sent (DRF's own ``get_ident`` reads that header)."""

    def get_ident(self, request: Request) -> str:
        return client_address(request) or ""


class ApiAnonThrottle(ByClientAddress, AnonRateThrottle):
    """Anonymous callers, per IP (``DURAK_API_RATE_ANON``)."""


class ApiUserThrottle(ByClientAddress, UserRateThrottle):
    """Callers with a token or a session, per user (``DURAK_API_RATE_USER``)."""


class ApiWriteThrottle(ByClientAddress, UserRateThrottle):
    """Writes, per user (``DURAK_API_RATE_WRITE``), on top of the user's rate."""

    scope = "write"


class ApiCursorPagination(CursorPagination):
    """Cursor pagination over a stable, unique ordering (newest first by id). A cursor that is
    not one of ours is a bad request (400 on ``cursor``), not a missing page; so is a
    ``page_size`` out of its bounds (the views check it against the schema)."""

    page_size = 50
    max_page_size = 200
    page_size_query_param = "page_size"
    ordering = "-id"

    def decode_cursor(self, request: Request) -> Any:
        try:
            return super().decode_cursor(request)
        except NotFound as exc:
            raise invalid_parameters({self.cursor_query_param: [str(exc.detail)]}) from None

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        # The bounds of ``page_size`` in the schema, which is what the views check it against
        # (``tournaments.api.contract``): beyond them a 400, never a silent clamp.
        parameters: list[dict[str, Any]] = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"].update(minimum=1, maximum=self.max_page_size)
                parameter["description"] = f"Rows per page: 1 to {self.max_page_size} (default "
                parameter["description"] += f"{self.page_size})."
        return parameters


def etag_for(request: Request, tournament: Tournament) -> str:
    """The weak ETag of ``request``'s answer about ``tournament`` at its current version."""
    basis = "|".join(
        [
            str(tournament.pk),
            # An id can come back (a database rebuilt, a test rolled back): its creation cannot.
            tournament.created_at.isoformat() if tournament.created_at else "",
            str(tournament.version),
            request.get_full_path(),
            get_language() or "",
            str(request.accepted_media_type or ""),
        ]
    )
    return "W/" + quote_etag(hashlib.sha256(basis.encode()).hexdigest()[:24])


def etag_matches(header: str, etag: str) -> bool:
    """Whether an ``If-None-Match`` header matches ``etag``."""
    wanted = {tag.strip() for tag in header.split(",")}
    # Weak comparison (RFC 9110 8.8.3.2): W/"x" matches "x" and W/"x".
    bare = etag.removeprefix("W/")
    return "*" in wanted or etag in wanted or bare in wanted or f"W/{bare}" in wanted


class TournamentReadView(ContractView):
    """A read of one tournament's data: ``slug`` in the URL, visibility, conditional GET."""

    throttle_classes = [ApiAnonThrottle, ApiUserThrottle]

    def get_tournament(self) -> Tournament:
        slug = self.kwargs.get("slug", "")
        tournament = visibility.tournaments_visible_to(self.request.user).filter(slug=slug).first()
        if tournament is None:
            raise Http404
        return tournament

    def respond(
        self, tournament: Tournament, build: Callable[[], Any], *, status_code: int = 200
    ) -> Response:
        """``build()``'s data as the answer, unless the caller's copy is current (304)."""
        etag = etag_for(self.request, tournament)
        if current(self.request, etag, tournament):
            response = Response(status=status.HTTP_304_NOT_MODIFIED)
        else:
            response = Response(built(etag, build), status=status_code)
        return cache_headers(response, tournament, etag)


def current(request: Request, etag: str, tournament: Tournament) -> bool:
    """Whether the caller's copy is current: its ``If-None-Match`` matches ``etag``, or, when it
    sends none, its ``If-Modified-Since`` is not before the tournament's last change (RFC 9110
    13.2.2: the ETag wins; ``Last-Modified`` is to the second)."""
    wanted = request.headers.get("If-None-Match", "")
    if wanted:
        return etag_matches(wanted, etag)
    since = parse_http_date_safe(request.headers.get("If-Modified-Since", ""))
    changed = tournament.changed_at or tournament.created_at
    return since is not None and changed is not None and int(changed.timestamp()) <= since


def built(etag: str, build: Callable[[], Any]) -> Any:
    """``build()``, kept in the shared cache under the answer's ETag: the same version, path,
    language and format give the same data, so every later reader gets it for one cache read
    (a change bumps the version, and so the key). A cache that cannot be read or written is
    no cache: the data is built."""
    key = f"api:{etag}"
    try:
        data = cache.get(key)
    except Exception:
        logger.exception("the API's cache cannot be read")
        return build()
    if data is None:
        data = build()
        try:
            cache.set(key, data, BUILT_SECONDS)
        except Exception:
            logger.exception("the API's cache cannot be written")
    return data


def cache_headers(response: Response, tournament: Tournament, etag: str) -> Response:
    """``ETag``, ``Last-Modified`` and ``Cache-Control`` for an answer about ``tournament``."""
    response["ETag"] = etag
    changed = tournament.changed_at or tournament.created_at
    if changed is not None:
        response["Last-Modified"] = http_date(changed.timestamp())
    if not tournament.is_public:
        response["Cache-Control"] = "private, no-cache"
    elif tournament.status == Tournament.Status.FINISHED and tournament.ranks_computed_at:
        response["Cache-Control"] = f"public, max-age={SETTLED_MAX_AGE}"
    else:
        response["Cache-Control"] = "public, no-cache"
    response["Vary"] = "Accept, Accept-Language, Authorization, Cookie"
    if tournament.is_public and tournament.status != Tournament.Status.DRAFT:
        response[STAMP_HEADER] = versions.stamp(tournament.pk, tournament.version)
    return response
