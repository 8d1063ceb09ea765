"""Errors of the pairing package.

Two kinds, as in Tabbycat's draw generator: a `PairingError` is shown to the referee (a bad
configuration, an impossible request) and carries a message written for them; anything that
"should never happen" is an ``assert`` and means a bug here.
"""

from __future__ import annotations

__all__ = ["ConfigError", "PairingError"]


class PairingError(ValueError):
    """A pairing request that cannot be honoured; the message is meant for the referee.

    >>> str(PairingError("entry 7 is listed twice"))
    'entry 7 is listed twice'
    """


class ConfigError(PairingError):
    """A stage configuration that can never be paired (raised at configuration time).

    >>> isinstance(ConfigError("table size 7"), PairingError)
    True
    """
