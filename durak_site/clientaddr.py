"""The client's address, taken in one place: the ASGI scope's ``client``.

uvicorn puts the connecting peer's address there, and replaces it with the one in
``X-Forwarded-For`` only when the peer is one of ``DURAK_TRUSTED_PROXIES`` (the server's command
line, ``durak_site.processes``); Django's ASGI handler copies it to ``REMOTE_ADDR``. So the
address here is the proxy's word when a trusted proxy forwarded the request and the peer's own
otherwise, and never a header the client wrote. Nothing in the application reads
``X-Forwarded-For`` itself: the login lockout (django-axes' ``AXES_CLIENT_IP_CALLABLE``), the
API's throttles (``tournaments.api.common``) and the log lines that name a client all take
their address from here. (A WebSocket's address is its scope's ``client``, the same one.)
"""

from __future__ import annotations

from django.http import HttpRequest


def client_address(request: HttpRequest) -> str | None:
    """The address of the client of ``request`` (a DRF ``Request`` works too: it passes
    ``META`` through); None when the server had none to give (a Unix socket's peer), which
    django-axes stores as no address and the throttles count as one client."""
    return request.META.get("REMOTE_ADDR") or None
