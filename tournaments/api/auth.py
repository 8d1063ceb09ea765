"""Token authentication that takes ``Authorization: Bearer <token>`` as well as DRF's
``Token <token>``: the live table's sockets take both, and so does every REST endpoint.

The key is a personal token (made on the account's tokens page, scoped ``read`` or ``write``)
or a DRF token of the console (``write``): ``games.tokens`` says which and checks it. A
revoked, expired or unknown key is a 401; a ``read`` token on a method that is not safe (POST,
PUT, PATCH, DELETE) is a 403 with the code ``token_scope``, whatever the operation, but for a
view that says ``read_tokens_write = True`` (a socket ticket: it carries the scope along).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication, get_authorization_header
from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request

from games.tokens import Credentials, TokenRefused, token_credentials

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
        found = super().authenticate(request)
        view = (request.parser_context or {}).get("view")
        if (
            found is not None
            and request.method not in SAFE_METHODS
            and not found[1].writes
            and not getattr(view, "read_tokens_write", False)
        ):
            raise exceptions.PermissionDenied(
                gettext("this token may only read: make a token with the write scope"),
                code="token_scope",
            )
        return found

    def authenticate_credentials(self, key: str) -> tuple[Any, Credentials]:
        try:
            credentials = token_credentials(key)
        except TokenRefused as exc:
            raise exceptions.AuthenticationFailed(exc.message) from None
        return credentials.user, credentials


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
            "description": (
                "A personal token (made on `/accounts/tokens/`), as `Token <key>` or "
                "`Bearer <key>`. A `read` token on a method other than GET, HEAD or OPTIONS is "
                "`403` `token_scope`; a revoked or expired one is `401`."
            ),
        }
