"""No secret in a log line: credentials in a URL (its query string, a password reset link's
token) are redacted before the server's access and error logs print the URL.

The site takes no credentials in a URL except a socket ticket (single use, seconds long), and
refuses an API token there (``games.auth``); but a client may still send one, and uvicorn prints
every request's path with its query string (``GET /x?token=... 200``, ``"WebSocket
/ws/tables/1/?ticket=..." [accepted]``). :class:`RedactSecrets` rewrites those values to
``[redacted]`` in every record of the loggers it is installed on (:func:`install`, run by
``durak_site.server`` in each server process).
"""

from __future__ import annotations

import logging
import re
from urllib.parse import unquote_plus

#: Query parameters whose values are secrets, wherever they appear.
SECRET_PARAMETERS = (
    "token",
    "ticket",
    "key",
    "api_key",
    "apikey",
    "access_token",
    "secret",
    "password",
    "sessionid",
    "csrfmiddlewaretoken",
)
REDACTED = "[redacted]"
# A query string in a log line: from "?" up to a space or a quote (one pass, no backtracking:
# the text is whatever a client put in its URL).
_QUERY = re.compile(r"\?[^\s\"']+")
_PAIR_SEPARATORS = re.compile(r"([&;])")
# A password reset link's token sits in the path (Django's PasswordResetConfirmView, which then
# moves it into the session and redirects to ".../set-password/").
_RESET_TOKEN = re.compile(r"(/password-reset/[^/\s?\"']+/)(?!set-password/)[^/\s?\"']+")
#: Where uvicorn prints a request's path with its query string.
SERVER_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access")


def _secret_name(name: str) -> bool:
    """Whether a query parameter's name (percent-encoded or not) names a secret: it is one of
    :data:`SECRET_PARAMETERS` or ends with one (``x_token``)."""
    decoded = unquote_plus(name).strip().lower()
    return decoded.endswith(SECRET_PARAMETERS)


def _redact_query(query: str) -> str:
    parts = _PAIR_SEPARATORS.split(query[1:])
    for n in range(0, len(parts), 2):
        name, equals, value = parts[n].partition("=")
        if equals and value and _secret_name(name.split("#", 1)[0]):
            parts[n] = f"{name}={REDACTED}"
    return "?" + "".join(parts)


def redact(text: str) -> str:
    """``text`` with the value of every secret query parameter replaced.

    >>> redact('GET /ws/tables/1/?ticket=abc&lang=en HTTP/1.1')
    'GET /ws/tables/1/?ticket=[redacted]&lang=en HTTP/1.1'
    >>> redact('/x?a=1&Token=s3cret;%74oken=s3cret')
    '/x?a=1&Token=[redacted];%74oken=[redacted]'
    >>> redact('GET /accounts/password-reset/MQ/cz1abc-123/ HTTP/1.1')
    'GET /accounts/password-reset/MQ/[redacted]/ HTTP/1.1'
    """
    if "/password-reset/" in text:
        text = _RESET_TOKEN.sub(lambda m: m[1] + REDACTED, text)
    if "?" not in text or "=" not in text:
        return text
    return _QUERY.sub(lambda m: _redact_query(m[0]), text)


class RedactSecrets(logging.Filter):
    """Redacts secret query values in a record's message and its string arguments."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {
                k: redact(v) if isinstance(v, str) else v for k, v in record.args.items()
            }
        return True


class ClientFaults(logging.Filter):
    """A client's malformed frame is the client's fault, not the server's: uvicorn logs it as an
    error with a traceback (and closes the socket with 1007), so that any client could fill the
    log with tracebacks. Such a record becomes one warning line."""

    MESSAGES = frozenset({"Invalid UTF-8 sequence received from client."})

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg in self.MESSAGES:
            record.exc_info, record.exc_text = None, None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def install(names: tuple[str, ...] = SERVER_LOGGERS) -> None:
    """Put one :class:`RedactSecrets` and one :class:`ClientFaults` on each logger named (once,
    however often called)."""
    for name in names:
        logger = logging.getLogger(name)
        for kind in (RedactSecrets, ClientFaults):
            if not any(isinstance(f, kind) for f in logger.filters):
                logger.addFilter(kind())
