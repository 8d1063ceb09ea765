"""The API's language: English unless the request's ``Accept-Language`` asks for Russian.

The site's pages are Russian first (``LANGUAGE_CODE``, the language cookie); an API client is a
program whose developer reads English, and its answers must not change language with a cookie
that a browser happened to carry. So under ``/api/`` only ``Accept-Language`` counts, and with
no language of ours in it the answer is English: every message of one answer (the API's own,
the services', DRF's) in that one language.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.utils.translation.trans_real import parse_accept_lang_header

API_PREFIX = "/api/"
#: The API's language when the request asks for none of ours.
DEFAULT = "en"


def api_language(accept_language: str) -> str:
    """The language of an API answer for an ``Accept-Language`` header.

    >>> api_language("ru-RU,ru;q=0.9"), api_language("de, ru;q=0.5"), api_language("fr")
    ('ru', 'ru', 'en')
    """
    ours = {code for code, _ in settings.LANGUAGES}
    for code, _quality in parse_accept_lang_header(accept_language):
        if code == "*":
            break
        base = code.lower().split("-")[0]
        if base in ours:
            return base
    return DEFAULT


class ApiLanguageMiddleware:
    """After ``LocaleMiddleware``: under ``/api/``, the language is :func:`api_language`'s."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path.startswith(API_PREFIX):
            return self.get_response(request)
        language = api_language(request.headers.get("Accept-Language", ""))
        translation.activate(language)
        request.LANGUAGE_CODE = language
        response = self.get_response(request)
        response.headers.setdefault("Content-Language", language)
        return response
