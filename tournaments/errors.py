"""Refusals of tournament services: shown to organisers and referees, with a stable code."""

from __future__ import annotations

from durak_site.errors import Conflict, NotFound, ServiceError


class TournamentError(ServiceError):
    code = "invalid_tournament"


class ConfigurationError(TournamentError):
    """A configuration that can never run; refused when it is saved, never found in round 3."""

    code = "invalid_configuration"


class RegistrationError(TournamentError):
    code = "registration_refused"


class StateError(Conflict):
    """The action does not fit the current status (pairing a finished round, ...)."""

    code = "wrong_status"


class ResultError(TournamentError):
    code = "invalid_result"


__all__ = [
    "ConfigurationError",
    "NotFound",
    "RegistrationError",
    "ResultError",
    "StateError",
    "TournamentError",
]
