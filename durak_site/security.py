"""The security headers of every page beyond what Django's ``SecurityMiddleware`` sets.

- ``Content-Security-Policy`` from ``settings.CONTENT_SECURITY_POLICY`` (django-csp): scripts
  only from our own origin (an inline script needs the request's nonce,
  ``{{ request.csp_nonce }}``), no plugins, no ``<base>`` or form posts elsewhere, and no
  framing by other sites;
- the embeds (``settings.DURAK_EMBED_PATHS``, ``/embed/...``) are made to be framed by club and
  venue sites, and by a page saved on a computer: they carry no ``X-Frame-Options`` and, unless
  ``DURAK_EMBED_FRAME_ANCESTORS`` names the sites that may frame them, no ``frame-ancestors``
  at all. (``frame-ancestors *`` is not "anyone": in CSP3 ``*`` matches the network schemes only,
  so a local file's page, a ``data:`` page or a sandboxed frame, whose origins are ``file:`` or
  opaque, would be refused; only a policy without the directive lets every ancestor frame.)
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
            # None drops the directive (django-csp): any ancestor, of any scheme.
            ancestors = {"frame-ancestors": settings.DURAK_EMBED_FRAME_ANCESTORS or None}
            parts.replace = {**(parts.replace or {}), **ancestors}
        return parts
