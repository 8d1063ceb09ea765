"""Token authentication that takes ``Authorization: Bearer <token>`` as well as DRF's
``Token <token>``: the live table's sockets take both, and so does every REST endpoint."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework.authentication import TokenAuthentication, get_authorization_header
from rest_framework.request import Request

#: The schemes a token may come under, as RFC 6750 (``Bearer``) and DRF (``Token``) name them.
SCHEMES = (b"token", b"bearer")


class BearerTokenAuthentication(TokenAuthentication):
    """DRF's token authentication, under either scheme. A ``401`` still names ``Token`` in
    ``WWW-Authenticate`` (DRF's own), which the API's docs describe."""

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        scheme = get_authorization_header(request).split(b" ", 1)[0].lower()
        if scheme not in SCHEMES:
            return None
        # DRF's parsing and checks (one token, no spaces, readable), under the scheme sent.
        self.keyword = scheme.decode()
        return super().authenticate(request)


class BearerTokenScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    """The schema's security scheme of :class:`BearerTokenAuthentication`."""

    target_class = BearerTokenAuthentication
    name = "tokenAuth"
    priority = 1

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "A personal token: `Token <key>` or `Bearer <key>`.",
        }
