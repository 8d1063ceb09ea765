"""Refusals of tournament services: shown to organisers and referees, with a stable code."""

from __future__ import annotations

from typing import Any

from rest_framework import status

from durak_site.errors import Conflict, NotFound, ServiceError


class TournamentError(ServiceError):
    code = "invalid_tournament"


class ConfigurationError(TournamentError):
    """A configuration that can never run; refused when it is saved, never found in round 3."""

    code = "invalid_configuration"


class RegistrationError(TournamentError):
    """An entry refused for what was asked (a team in an individual event, a reason missing)."""

    code = "registration_refused"


class RegistrationConflict(RegistrationError):
    """An entry refused for the event's state, the same request may pass another time:
    registration closed, the event full, the player already in it or running it."""

    http_status = status.HTTP_409_CONFLICT


class StateError(Conflict):
    """The action does not fit the current status (pairing a finished round, ...)."""

    code = "wrong_status"


class ResultError(TournamentError):
    code = "invalid_result"


class ResultConflict(ResultError):
    """A result refused for the table's state (nobody seated yet, a result already in force),
    not for its places."""

    http_status = status.HTTP_409_CONFLICT


class AwardsError(TournamentError):
    """An end-of-event job cannot compute its part from the rows it reads (a final place
    missing, places out of order, a payout structure that cannot pay): ``params`` make the
    message again in the reader's language (``tournaments.services.failures``)."""

    code = "awards_failed"

    def __init__(
        self, message: str, *, code: str = "awards_failed", params: dict[str, Any] | None = None
    ) -> None:
        # (code has a default so that the error unpickles from its message alone, as a worker's
        # result backend rebuilds it)
        super().__init__(message, code=code)
        self.params: dict[str, Any] = dict(params or {})


__all__ = [
    "AwardsError",
    "ConfigurationError",
    "NotFound",
    "RegistrationConflict",
    "RegistrationError",
    "ResultConflict",
    "ResultError",
    "StateError",
    "TournamentError",
]


class FairPlayError(TournamentError):
    """A fair-play decision that cannot be recorded (no reason, no such decision, no person)."""
