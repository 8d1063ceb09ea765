"""Typed environment values that fail loudly.

Every setting that comes from the environment is read here, once, through one of these
helpers. A value that is present but malformed stops the process at start-up with the
variable's name in the message: a typo in production must never fall back to a default.
"""

from __future__ import annotations

import os
from urllib.parse import parse_qs, urlsplit

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off", ""})


class EnvError(RuntimeError):
    """An environment variable is missing or malformed."""


def _raw(name: str) -> str | None:
    value = os.environ.get(name)
    return None if value is None else value.strip()


def env_str(name: str, default: str | None = None, *, required: bool = False) -> str:
    """A string; ``required`` refuses both a missing and an empty value."""
    value = _raw(name)
    if value:
        return value
    if required or default is None:
        raise EnvError(f"{name} must be set")
    return default


def env_optional(name: str) -> str | None:
    """A string, or None when unset or empty."""
    return _raw(name) or None


def env_bool(name: str, default: bool) -> bool:
    value = _raw(name)
    if value is None:
        return default
    lowered = value.lower()
    if lowered in TRUE_WORDS:
        return True
    if lowered in FALSE_WORDS:
        return False
    raise EnvError(
        f"{name} must be one of {sorted(TRUE_WORDS | FALSE_WORDS - {''})}, got {value!r}"
    )


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    value = _raw(name)
    if value is None or value == "":
        return default
    try:
        number = int(value)
    except ValueError:
        raise EnvError(f"{name} must be an integer, got {value!r}") from None
    if minimum is not None and number < minimum:
        raise EnvError(f"{name} must be at least {minimum}, got {number}")
    return number


def env_list(name: str, default: list[str] | None = None, *, required: bool = False) -> list[str]:
    """A comma-separated list; blanks are dropped."""
    value = _raw(name)
    items = [item.strip() for item in (value or "").split(",") if item.strip()]
    if items:
        return items
    if required:
        raise EnvError(f"{name} must list at least one value (comma-separated)")
    return list(default or [])


def env_url(name: str, schemes: tuple[str, ...]) -> str | None:
    """A URL whose scheme is one of ``schemes``, or None when unset."""
    value = env_optional(name)
    if value is None:
        return None
    scheme = value.split("://", 1)[0].lower() if "://" in value else ""
    if scheme not in schemes:
        raise EnvError(f"{name} must be a URL starting with one of {schemes}, got {value!r}")
    return value


def redis_database(url: str) -> str:
    """The database number of a Redis URL as redis-py reads it: ``?db=N``, else the path's
    ``/N``, else 0."""
    parts = urlsplit(url)
    asked = parse_qs(parts.query).get("db")
    return (asked[0] if asked else parts.path.strip("/")) or "0"


def env_origins(name: str) -> list[str]:
    """A comma-separated list of web origins, each exactly ``http(s)://host[:port]`` (no path,
    no wildcard), normalised to lower case; empty when unset."""
    origins = []
    for item in env_list(name):
        try:
            parts = urlsplit(item)
            port = parts.port
        except ValueError:
            parts, port = None, None
        if (
            parts is None
            or parts.scheme.lower() not in ("http", "https")
            or not parts.hostname
            or parts.path not in ("", "/")
            or parts.query
            or parts.fragment
            or "@" in parts.netloc
        ):
            raise EnvError(f"{name}: {item!r} is not an origin such as https://example.org:8443")
        origins.append(
            f"{parts.scheme.lower()}://{parts.hostname.lower()}" + (f":{port}" if port else "")
        )
    return origins
