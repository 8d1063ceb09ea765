"""The security headers of every page beyond what Django's ``SecurityMiddleware`` sets.

- ``Content-Security-Policy`` from ``settings.CONTENT_SECURITY_POLICY`` (django-csp): scripts
  only from our own origin (an inline script needs the request's nonce,
  ``{{ request.csp_nonce }}``), no plugins, no ``<base>`` or form posts elsewhere, and no
  framing by other sites;
- the embeds (``settings.DURAK_EMBED_PATHS``, ``/embed/...``) are made to be framed by club and
  venue sites: their ``frame-ancestors`` is ``DURAK_EMBED_FRAME_ANCESTORS`` (any site by default)
  and they carry no ``X-Frame-Options``;
- ``Permissions-Policy``: no page of ours uses the camera, the microphone, the location, payment
  or USB, so none may (nor may anything it frames).

``Referrer-Policy``, ``X-Content-Type-Options`` and ``Cross-Origin-Opener-Policy`` come from
Django's ``SecurityMiddleware`` (the settings name them).

Listed after ``XFrameOptionsMiddleware`` so that it runs before it on the way out: it marks an
embed's response exempt before that middleware would add ``DENY``.
"""

from __future__ import annotations

from csp.middleware import CSPMiddleware, PolicyParts
from django.conf import settings
from django.http import HttpRequest, HttpResponseBase


def is_embed(request: HttpRequest) -> bool:
    return request.path_info.startswith(tuple(settings.DURAK_EMBED_PATHS))


class SecurityHeadersMiddleware(CSPMiddleware):
    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        if is_embed(request):
            # Read by XFrameOptionsMiddleware, which runs after this one on the way out.
            response.xframe_options_exempt = True  # type: ignore[attr-defined]
        response = super().process_response(request, response)
        if "Permissions-Policy" not in response:
            response["Permissions-Policy"] = settings.DURAK_PERMISSIONS_POLICY
        return response

    def get_policy_parts(
        self, request: HttpRequest, response: HttpResponseBase, report_only: bool = False
    ) -> PolicyParts:
        parts = super().get_policy_parts(request, response, report_only)
        if is_embed(request):
            ancestors = {"frame-ancestors": settings.DURAK_EMBED_FRAME_ANCESTORS}
            parts.replace = {**(parts.replace or {}), **ancestors}
        return parts
