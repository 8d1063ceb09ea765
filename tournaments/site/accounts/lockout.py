"""Login throttling (django-axes, configured in ``settings.py``): its two locks, and how a
client is told it is locked out.

django-axes counts the failures of every ``authenticate(request, ...)`` call (the admin's login
and the players'), by username and address (``durak_site.clientaddr``), and refuses a locked-out
login before any password is checked. :class:`LockoutHandler` holds two counts to two limits:

- one username from one address, ``DURAK_LOGIN_FAILURE_LIMIT`` (5): a player who mistypes is
  stopped without locking out the others at the same club's address;
- one username from any addresses, ``DURAK_LOGIN_USERNAME_FAILURE_LIMIT`` (20): guesses at one
  account spread over many addresses stop too. The cost is that anyone can lock an account for
  the cool-off with that many wrong passwords; its owner can still reset the password by email.

Its middleware then answers with :func:`lockout_response`: HTTP 429 and the code
``login_locked_out`` (the service's error shape for a client that asks for JSON, a page for a
person), with ``Retry-After`` while a cool-off runs.
"""

from __future__ import annotations

import logging
import math
from datetime import timedelta
from typing import Any

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import (
    get_client_parameters,
    get_client_username,
    get_cool_off,
    get_failure_limit,
)
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Sum
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext

from durak_site.clientaddr import client_address
from durak_site.errors import error_body

LOCKED_OUT = "login_locked_out"
#: Set on a request whose username is locked from every address (the message says so).
BY_NAME = "durak_locked_by_name"

logger = logging.getLogger(__name__)


class LockoutHandler(AxesDatabaseHandler):  # type: ignore[misc]  # axes ships no types
    """django-axes' database handler (``AXES_HANDLER``) with a limit for each of its counts
    (``AXES_LOCKOUT_PARAMETERS``: the pair of username and address, and the username alone).

    django-axes holds the largest of its counts to one limit, ``AXES_FAILURE_LIMIT``, the pair's.
    The failures this reports are the pair's count, or at least that limit once the username's
    count has reached ``DURAK_LOGIN_USERNAME_FAILURE_LIMIT``; so both the check before a login
    and the lock after a failure apply both limits.
    """

    def get_failures(self, request: HttpRequest, credentials: dict[str, Any] | None = None) -> int:
        username = get_client_username(request, credentials)
        by_pair = by_name = 0
        filters = get_client_parameters(
            username,
            getattr(request, "axes_ip_address", None),  # set by axes on every request
            getattr(request, "axes_user_agent", None),
            request,
            credentials,
        )
        for kwargs, attempts in zip(
            filters, self.get_user_attempts(request, credentials), strict=True
        ):
            failures = attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0
            if "ip_address" in kwargs:
                by_pair = max(by_pair, failures)
            elif username is not None:  # failures without a name are no one account's
                by_name = max(by_name, failures)
        locked_by_name = by_name >= settings.DURAK_LOGIN_USERNAME_FAILURE_LIMIT
        setattr(request, BY_NAME, locked_by_name)
        if locked_by_name:
            return max(by_pair, int(get_failure_limit(request, credentials)))
        return by_pair

    def user_login_failed(
        self,
        sender: Any,
        credentials: dict[str, Any],
        request: HttpRequest | None = None,
        **kw: Any,
    ) -> None:
        was_locked = request is not None and getattr(request, BY_NAME, False)
        super().user_login_failed(sender, credentials, request, **kw)
        if request is not None and getattr(request, BY_NAME, False) and not was_locked:
            username = get_client_username(request, credentials)
            attempts = AccessAttempt.objects.filter(username=username)
            logger.warning(
                "login: %r locked out by name after %s failures from %s addresses (the last "
                "from %s)",
                username,
                attempts.aggregate(n=Sum("failures_since_start"))["n"],
                attempts.order_by().values("ip_address").distinct().count(),
                client_address(request),
            )


def wants_json(request: HttpRequest) -> bool:
    """An API client or a script (JSON asked for, or an ``/api/`` address), not a person's
    browser."""
    accept = request.headers.get("accept", "")
    return (
        request.path.startswith("/api/")
        or request.headers.get("x-requested-with") == "XMLHttpRequest"
        or ("application/json" in accept and "text/html" not in accept)
    )


def lockout_message(cool_off: timedelta | None, *, by_name: bool = False) -> str:
    """What the lock means to the person: the name from their address, or (``by_name``) the
    name from everywhere."""
    if by_name:
        if cool_off is None:
            return gettext(
                "Too many failed logins with this name: logins with it are locked until an "
                "administrator lifts the lock. You can still reset your password."
            )
        minutes = max(1, math.ceil(cool_off.total_seconds() / 60))
        return gettext(
            "Too many failed logins with this name: logins with it are locked for "
            "%(minutes)s minutes. You can still reset your password."
        ) % {"minutes": minutes}
    if cool_off is None:
        return gettext(
            "Too many failed logins with this name from your address: logins are locked until "
            "an administrator lifts the lock."
        )
    minutes = max(1, math.ceil(cool_off.total_seconds() / 60))
    return gettext(
        "Too many failed logins with this name from your address: try again in %(minutes)s "
        "minutes, or reset your password."
    ) % {"minutes": minutes}


def lockout_response(
    request: HttpRequest, original_response: Any = None, credentials: Any = None
) -> HttpResponse:
    """django-axes' ``AXES_LOCKOUT_CALLABLE``: the answer to a login it refused. (Its async
    middleware passes the credentials second, its sync one third: neither is needed here.)"""
    cool_off = get_cool_off(request)
    message = lockout_message(cool_off, by_name=getattr(request, BY_NAME, False))
    retry_after = None if cool_off is None else str(math.ceil(cool_off.total_seconds()))
    response: HttpResponse
    if wants_json(request):
        body = error_body(LOCKED_OUT, message)
        if retry_after is not None:
            body["retry_after"] = int(retry_after)
        response = JsonResponse(body, status=429)
    else:
        context = {"code": LOCKED_OUT, "message": message, "cool_off": cool_off}
        response = render(request, "accounts/locked_out.html", context, status=429)
    if retry_after is not None:
        response["Retry-After"] = retry_after
    return response
