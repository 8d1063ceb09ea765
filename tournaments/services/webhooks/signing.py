"""The Standard Webhooks signature, for both ends.

The key is the secret's bytes: after its ``whsec_`` prefix, base64-decoded (the secrets made
here, as the Standard Webhooks libraries expect them); a secret without that prefix is used as
its UTF-8 bytes. A receiver checks a delivery with :func:`verify_signature` (or any Standard
Webhooks library): the signature compared in constant time, the timestamp at most five minutes
off its own clock (a replayed old request is refused), and it drops an id it has seen.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
import time
from collections.abc import Mapping

TOLERANCE = 300  # seconds a receiver accepts a timestamp off its clock


def new_secret() -> str:
    """A new webhook secret, as Standard Webhooks writes them: ``whsec_`` and 32 random bytes in
    base64."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode("ascii")


def _key(secret: str) -> bytes:
    if secret.startswith("whsec_"):
        try:
            return base64.b64decode(secret[len("whsec_") :], validate=True)
        except (binascii.Error, ValueError):
            pass
    return secret.encode("utf-8")


def sign(secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    """The ``webhook-signature`` header of ``body`` sent as ``msg_id`` at ``timestamp``.

    >>> sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_1_2", 1700000000, b"{}")[:3]
    'v1,'
    """
    signed = f"{msg_id}.{timestamp}.".encode() + body
    digest = hmac.new(_key(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode("ascii")


def verify_signature(
    secret: str,
    headers: Mapping[str, str],
    body: bytes,
    *,
    tolerance: int = TOLERANCE,
    now: float | None = None,
) -> bool:
    """For receivers: whether ``body`` with ``headers`` was signed with ``secret`` within
    ``tolerance`` seconds (five minutes) of ``now``.

    ``headers`` are the request's (any case of the names). Every ``v1`` signature in the
    header is compared in constant time (a rotated secret may sign twice); a missing header, a
    timestamp out of the window, or no matching signature is ``False``. Check the timestamp
    *and* keep the ids you processed: together they refuse a replay.
    """
    lower = {name.lower(): value for name, value in headers.items()}
    msg_id = lower.get("webhook-id", "")
    stamp = lower.get("webhook-timestamp", "")
    given = lower.get("webhook-signature", "")
    if not msg_id or not stamp.isdigit() or not given:
        return False
    current = time.time() if now is None else now
    if abs(current - int(stamp)) > tolerance:
        return False
    expected = sign(secret, msg_id, int(stamp), body).encode()
    found = False
    for part in given.split():
        version, _, _signature = part.partition(",")
        if version == "v1" and hmac.compare_digest(part.encode(), expected):
            found = True  # no early return: the same work whichever signature matches
    return found
