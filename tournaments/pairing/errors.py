"""Errors of the pairing package.

Two kinds, as in Tabbycat's draw generator: a `PairingError` is shown to the referee (a bad
configuration, an impossible request) and carries a message written for them; anything that
"should never happen" is an ``assert`` and means a bug here.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ConfigError", "PairingError"]


class PairingError(ValueError):
    """A pairing request that cannot be honoured; the message is meant for the referee.

    >>> str(PairingError("entry 7 is listed twice"))
    'entry 7 is listed twice'
    """


class ConfigError(PairingError):
    """A stage configuration that can never be paired (raised at configuration time).

    ``stage`` (its number from 1, 0: the plan as a whole), ``field`` (the stage setting to
    blame, "" for the stage as a whole), ``reason`` and ``params`` name the problem for a caller
    that words it in its reader's language; the message is the pairing code's English.

    >>> isinstance(ConfigError("table size 7"), PairingError)
    True
    >>> ConfigError("stage 1 (swiss): ...", stage=1, field="rounds", reason="rounds").field
    'rounds'
    """

    def __init__(
        self,
        message: str = "",
        *,
        stage: int = 0,
        field: str = "",
        reason: str = "",
        params: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.stage = stage
        self.field = field
        self.reason = reason
        self.params: dict[str, Any] = dict(params or {})
