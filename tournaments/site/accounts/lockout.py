"""Login throttling (django-axes, configured in ``settings.py``): how a client is told it is
locked out, and which address is the client's.

django-axes counts the failures of every ``authenticate(request, ...)`` call (the admin's login
and the players'), and refuses a locked-out pair of username and address before any password is
checked. Its middleware then answers with :func:`lockout_response`: HTTP 429 and the code
``login_locked_out`` (the service's error shape for a client that asks for JSON, a page for a
person), with ``Retry-After`` while a cool-off runs.
"""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

from axes.helpers import get_cool_off
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from durak_site.errors import error_body

LOCKED_OUT = "login_locked_out"


def client_ip(request: HttpRequest) -> str:
    """The client's address as the API's throttles see it (DRF's ``NUM_PROXIES``, from
    ``DURAK_NUM_PROXIES``): the one the trusted proxies put in ``X-Forwarded-For``, or
    ``REMOTE_ADDR`` when there are none."""
    return BaseThrottle().get_ident(Request(request)) or ""


def wants_json(request: HttpRequest) -> bool:
    """An API client or a script (JSON asked for, or an ``/api/`` address), not a person's
    browser."""
    accept = request.headers.get("accept", "")
    return (
        request.path.startswith("/api/")
        or request.headers.get("x-requested-with") == "XMLHttpRequest"
        or ("application/json" in accept and "text/html" not in accept)
    )


def lockout_message(cool_off: timedelta | None) -> str:
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
    message = lockout_message(cool_off)
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
