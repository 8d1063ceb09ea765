"""The declared schema of a tournament plan: what "create a tournament" takes, as DRF serializers.

``TournamentPlanSerializer`` validates a plan's shape (types, ranges, choices, unknown keys)
without the database; ``services.tournament_create`` runs it on its input and the REST API will
run it on the request body. What a schema cannot see (a stage plan the pairing code cannot run,
rules the engine refuses at some table size, payouts that do not add up) is checked afterwards by
``services.plans.validate_plan``.

A stage is written as a spec, the same shape in and out::

    {"name": "", "format": "swiss", "table_size": 4, "rounds": 3, "groups": None,
     "advance_per_table": None, "advance": {"top": 16}, "series": {"format": "single", "target": 1},
     "scoring": {}, "tiebreaks": []}

Validated data keeps that shape (defaults filled in), so it can be passed back to
``tournament_create``; :func:`stage_fields` and :func:`stage_spec` translate a spec to the
``Stage`` row's fields and back, and the serializers also represent a stored ``Tournament`` (or
``Stage``) as its plan. Errors are field errors in DRF's shape (their keys are the plan's, for
programs); their messages are in the active language (``gettext_lazy``, made when the error is),
and :func:`error_message` joins them with each field named in words
(``plan_words.field_label``): ``Stage 3, series length: must be odd for a best-of series, not 2``.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.settings import api_settings

from tournaments.models import Stage
from tournaments.plan_words import field_label
from tournaments.scoring.points import TIE_BREAKS
from tournaments.scoring.prizes import ISO_4217_EXPONENTS

__all__ = [
    "StageAdvanceSerializer",
    "StageScoringSerializer",
    "StageSeriesSerializer",
    "StageSpecSerializer",
    "TournamentPlanSerializer",
    "error_fields",
    "error_lines",
    "error_message",
    "stage_fields",
    "stage_spec",
]

# The database's bounds, so that a plan the schema accepts can always be stored.
SMALL_MAX = 32767  # PositiveSmallIntegerField
POSITIVE_MAX = 2147483647  # PositiveIntegerField

_MISSING = {"required": _("required"), "null": _("must not be empty")}
_AT_MOST = _("must be at most {max_value}")


# --- fields with the plan's messages, in the active language ----------------------------------


class _WholeField(serializers.IntegerField):
    default_error_messages = {
        **_MISSING,
        "invalid": _("must be a whole number"),
        "max_string_length": _("is too long"),
        "min_value": _("must be at least {min_value}"),
        "max_value": _AT_MOST,
    }


class _AmountField(serializers.DecimalField):
    default_error_messages = {
        **_MISSING,
        "invalid": _("must be a number"),
        "min_value": _("must not be negative"),
        "max_value": _AT_MOST,
        "max_digits": _("too many digits (at most {max_digits})"),
        "max_decimal_places": _("at most {max_decimal_places} decimal places"),
        "max_whole_digits": _("too many digits before the point (at most {max_whole_digits})"),
        "max_string_length": _("is too long"),
    }


class _TextField(serializers.CharField):
    default_error_messages = {
        **_MISSING,
        "invalid": _("must be text"),
        "blank": _("must not be blank"),
        "max_length": _("must be at most {max_length} characters"),
        "min_length": _("must be at least {min_length} characters"),
    }


class _FlagField(serializers.BooleanField):
    default_error_messages = {**_MISSING, "invalid": _("must be yes or no (true or false)")}


class _ListField(serializers.ListField):
    default_error_messages = {
        **_MISSING,
        "not_a_list": _("must be a list, not {input_type}"),
        "empty": _("must not be empty"),
        "min_length": _("must have at least {min_length} items"),
        "max_length": _("must have at most {max_length} items"),
    }


class _ObjectField(serializers.DictField):
    default_error_messages = {**_MISSING, "not_a_dict": _("must be an object, not {input_type}")}


class _ChoiceField(serializers.ChoiceField):
    """A choice whose refusal names the choices."""

    default_error_messages = {
        **_MISSING,
        "invalid_choice": _("must be one of {choices}, not {input!r}"),
    }

    def fail(self, key: str, **kwargs: Any) -> Any:
        if key == "invalid_choice":
            kwargs["choices"] = ", ".join(str(value) for value in self.choices)
        return super().fail(key, **kwargs)


def _choice(values: list[Any], **kwargs: Any) -> serializers.ChoiceField:
    return _ChoiceField(choices=values, **kwargs)


@extend_schema_field(
    {"oneOf": [{"type": "integer", "minimum": 0}, {"type": "string", "example": "1/2"}]}
)
class ExactNumberField(serializers.Field[int | str, Any, int | str, Any]):
    """A non-negative exact number for the scoring tables: an int, or a string such as "0.5" or
    "1/2" (kept as given, since JSON has no exact decimals). Floats are refused: 0.1 is not exact.
    """

    default_error_messages = {
        **_MISSING,
        "invalid": _(
            "{input!r} is not a number: write a whole number, a decimal such as 0.5 or a "
            "fraction such as 1/2"
        ),
        "inexact": _("must be exact: a whole number or a string such as '0.5', not {input!r}"),
        "negative": _("must not be negative"),
    }

    def to_internal_value(self, data: Any) -> int | str:
        if isinstance(data, (bool, float)):
            self.fail("inexact", input=data)
        if isinstance(data, int):
            value: Fraction = Fraction(data)
            kept: int | str = data
        elif isinstance(data, (str, Decimal, Fraction)) and len(str(data)) <= 100:
            try:
                value = Fraction(str(data).strip())
            except (ValueError, ZeroDivisionError):
                self.fail("invalid", input=data)
            kept = str(data).strip()
        else:
            self.fail("invalid", input=data)
        if value < 0:
            self.fail("negative")
        return kept

    def to_representation(self, value: Any) -> int | str:
        return value if isinstance(value, int) else str(value)


# --- serializers ---------------------------------------------------------------------------------


class StrictSerializer(serializers.Serializer[Any]):
    """A serializer that refuses keys it does not declare, each named as a field error."""

    default_error_messages = {**_MISSING, "invalid": _("must be an object, not {datatype}")}

    def to_internal_value(self, data: Any) -> Any:
        unknown: dict[str, Any] = {}
        if isinstance(data, Mapping):
            known = ", ".join(self.fields)
            unknown = {
                str(key): [
                    gettext("unknown setting (the settings are %(known)s)") % {"known": known}
                ]
                for key in data
                if key not in self.fields
            }
        try:
            value = super().to_internal_value(data)
        except serializers.ValidationError as exc:
            if unknown and isinstance(exc.detail, dict):
                raise serializers.ValidationError({**exc.detail, **unknown}) from None
            raise
        if unknown:
            raise serializers.ValidationError(unknown)
        return value


class StageAdvanceSerializer(StrictSerializer):
    """Who goes on to the next stage: ``{"top": N}`` overall or ``{"per_table": K}``."""

    top = _WholeField(min_value=1, max_value=POSITIVE_MAX, required=False)
    per_table = _WholeField(min_value=1, max_value=POSITIVE_MAX, required=False)

    def validate(self, attrs: Any) -> Any:
        if len(attrs) > 1:
            raise serializers.ValidationError(
                gettext("either the top N overall or the top K of each table, not both")
            )
        return attrs


class StageSeriesSerializer(StrictSerializer):
    """What a table plays: one game, best of N, first to P points, or long durak."""

    format = _choice(Stage.SeriesFormat.values, default=Stage.SeriesFormat.SINGLE.value)
    target = _WholeField(min_value=1, max_value=SMALL_MAX, default=1)

    def validate(self, attrs: Any) -> Any:
        if attrs["format"] == Stage.SeriesFormat.BEST_OF and attrs["target"] % 2 == 0:
            raise serializers.ValidationError(
                {
                    "target": gettext("must be odd for a best-of series, not %(target)d")
                    % {"target": attrs["target"]}
                }
            )
        return attrs


class StageScoringSerializer(StrictSerializer):
    """Points by place per table size (``{"4": [3, 2, 1, 0]}``), the fool's pogony penalty and
    the bye's points. Whether a table adds up is checked by the scoring code (``validate_plan``).
    """

    tables = _ObjectField(child=_ListField(child=ExactNumberField()), required=False)
    fool_pogony_penalty = ExactNumberField(required=False)
    bye_points = ExactNumberField(required=False)

    def validate_tables(self, tables: dict[str, list[Any]]) -> dict[str, list[Any]]:
        bad = {
            size: [gettext("a table size is a whole number from 1")]
            for size in tables
            if not (size.isascii() and size.isdigit() and int(size) >= 1)
        }
        if bad:
            raise serializers.ValidationError(bad)
        return {str(int(size)): values for size, values in tables.items()}


# What each format needs: a field error here, before the pairing code checks the whole plan.
_NEEDS = {
    Stage.Format.SWISS: ("rounds", _("a swiss stage needs its number of rounds")),
    Stage.Format.ROUND_ROBIN: ("groups", _("a round-robin stage needs its number of groups")),
    Stage.Format.KNOCKOUT: (
        "advance_per_table",
        _("a knockout needs how many of each table go on"),
    ),
}


def _series_default() -> dict[str, Any]:
    return {"format": Stage.SeriesFormat.SINGLE.value, "target": 1}


class StageSpecSerializer(StrictSerializer):
    """One stage of a plan. Without a ``table_size`` the plan gives it its default (4, or the
    team table of a team event); the other settings default to none."""

    name = _TextField(max_length=80, allow_blank=True, default="")
    format = _choice(Stage.Format.values)
    table_size = _WholeField(
        min_value=2,
        max_value=6,
        required=False,
        error_messages=dict.fromkeys(("min_value", "max_value"), _("must be 2 to 6")),
    )
    rounds = _WholeField(min_value=1, max_value=SMALL_MAX, allow_null=True, default=None)
    groups = _WholeField(min_value=1, max_value=SMALL_MAX, allow_null=True, default=None)
    advance_per_table = _WholeField(min_value=1, max_value=SMALL_MAX, allow_null=True, default=None)
    advance = StageAdvanceSerializer(required=False, allow_null=True)
    series = StageSeriesSerializer(required=False, allow_null=True)
    scoring = StageScoringSerializer(required=False, allow_null=True)
    tiebreaks = _ListField(child=_choice(list(TIE_BREAKS)), required=False, allow_null=True)

    def validate_tiebreaks(self, tiebreaks: list[str] | None) -> list[str]:
        names = list(tiebreaks or [])
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise serializers.ValidationError(
                gettext("listed twice: %(names)s") % {"names": ", ".join(twice)}
            )
        return names

    def validate(self, attrs: Any) -> Any:
        key, message = _NEEDS[attrs["format"]]
        if attrs[key] is None:
            raise serializers.ValidationError({key: str(message)})
        attrs["advance"] = attrs.get("advance") or None  # {} is no advance, like null
        attrs["series"] = attrs.get("series") or _series_default()
        attrs["scoring"] = attrs.get("scoring") or {}
        attrs["tiebreaks"] = attrs.get("tiebreaks") or []
        return attrs

    def to_representation(self, instance: Any) -> dict[str, Any]:
        return super().to_representation(
            stage_spec(instance) if isinstance(instance, Stage) else instance
        )


class TournamentPlanSerializer(StrictSerializer):
    """A tournament's own settings and its stages: the input of "create a tournament".

    >>> plan = TournamentPlanSerializer(
    ...     data={"name": "Кубок", "stages": [{"format": "swiss", "rounds": 3}]}
    ... )
    >>> plan.is_valid(), plan.validated_data["stages"][0]["table_size"]
    (True, 4)
    """

    name = _TextField(max_length=160)
    stages = StageSpecSerializer(
        many=True,
        allow_empty=False,
        error_messages={
            **_MISSING,
            "not_a_list": _("must be a list of stages, not {input_type}"),
            "empty": _("a tournament needs at least one stage"),
        },
    )
    # Engine options that differ from the defaults (rules.md); the engine checks them per table.
    rules = _ObjectField(allow_null=True, default=dict)
    team_size = _choice([1, 2, 3], default=1)
    max_entries = _WholeField(min_value=2, max_value=POSITIVE_MAX, allow_null=True, default=None)
    check_in_required = _FlagField(default=False)
    late_registration_rounds = _WholeField(min_value=0, max_value=SMALL_MAX, default=0)
    currency = _TextField(max_length=3, default="RUB")
    # Money as the columns store it: never a float, never negative.
    entry_fee = _AmountField(max_digits=12, decimal_places=3, min_value=0, default=Decimal(0))
    rake_percent = _AmountField(
        max_digits=5,
        decimal_places=2,
        min_value=0,
        max_value=100,
        default=Decimal(0),
        error_messages=dict.fromkeys(
            ("min_value", "max_value", "max_digits", "max_whole_digits"),
            _("the rake is a percentage from 0 to 100"),
        ),
    )
    guarantee = _AmountField(max_digits=14, decimal_places=3, min_value=0, default=Decimal(0))
    reentry_fee = _AmountField(max_digits=12, decimal_places=3, min_value=0, default=Decimal(0))
    # Percentages by place; empty is the default falling scale. They must add up to 100
    # (checked with the pool, in validate_plan).
    payout_structure = _ListField(
        child=_AmountField(max_digits=None, decimal_places=None, min_value=0, max_value=100),
        default=list,
    )
    move_clock_seconds = _WholeField(min_value=0, max_value=POSITIVE_MAX, default=60)
    two_person_rule = _FlagField(default=False)
    dropout_rule = _choice(["clock", "referee"], default="clock")
    # Bots for absent players, for the rest of the event (``services.automation``).
    absent_bots = _choice(["off", "absent", "empty", "all"], default="off")
    absent_bots_seconds = _WholeField(min_value=1, max_value=POSITIVE_MAX, default=30)
    is_public = _FlagField(default=True)
    seed = _TextField(max_length=64, allow_blank=True, default="")
    # When it is planned to start (shown and counted down to while it is open); None: not said.
    starts_at = serializers.DateTimeField(allow_null=True, required=False, default=None)

    def validate_rules(self, rules: dict[str, Any] | None) -> dict[str, Any]:
        per_table: dict[str, list[str]] = {
            key: [gettext("set per table by the stage's table size, not in the rules")]
            for key in ("players", "teams")
            if key in (rules or {})
        }
        if per_table:
            raise serializers.ValidationError(per_table)
        return dict(rules or {})

    def validate_currency(self, code: str) -> str:
        if code.upper() not in ISO_4217_EXPONENTS:
            raise serializers.ValidationError(
                gettext("must be an ISO 4217 code such as RUB or EUR, not %(code)r")
                % {"code": code}
            )
        return code.upper()

    def validate(self, attrs: Any) -> Any:
        team_size = attrs["team_size"]
        for stage in attrs["stages"]:
            stage.setdefault("table_size", 2 * team_size if team_size > 1 else 4)
        return attrs


# --- specs and rows -----------------------------------------------------------------------------


def stage_fields(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The ``Stage`` row fields of a validated stage spec (one of a validated plan's stages)."""
    advance = spec.get("advance") or {}
    mode, count = Stage.AdvanceMode.NONE, 0
    if "top" in advance:
        mode, count = Stage.AdvanceMode.TOP_N, advance["top"]
    elif "per_table" in advance:
        mode, count = Stage.AdvanceMode.TOP_K_PER_TABLE, advance["per_table"]
    series = spec.get("series") or _series_default()
    return {
        "name": spec.get("name", ""),
        "format": spec["format"],
        "table_size": spec["table_size"],
        "rounds_planned": spec.get("rounds"),
        "groups": spec.get("groups"),
        "knockout_advance": spec.get("advance_per_table"),
        "series_format": series["format"],
        "series_target": series["target"],
        "scoring": spec.get("scoring") or {},
        "tiebreaks": list(spec.get("tiebreaks") or []),
        "advance_mode": mode,
        "advance_count": count,
    }


def stage_spec(stage: Stage) -> dict[str, Any]:
    """A stored stage as the spec it was created from: the inverse of :func:`stage_fields`."""
    advance: dict[str, int] | None = None
    if stage.advance_mode == Stage.AdvanceMode.TOP_N:
        advance = {"top": stage.advance_count}
    elif stage.advance_mode == Stage.AdvanceMode.TOP_K_PER_TABLE:
        advance = {"per_table": stage.advance_count}
    return {
        "name": stage.name,
        "format": stage.format,
        "table_size": stage.table_size,
        "rounds": stage.rounds_planned,
        "groups": stage.groups,
        "advance_per_table": stage.knockout_advance,
        "advance": advance,
        "series": {"format": stage.series_format, "target": stage.series_target},
        "scoring": stage.scoring or {},
        "tiebreaks": list(stage.tiebreaks or []),
    }


# --- errors --------------------------------------------------------------------------------------


def error_fields(detail: Any) -> Any:
    """Field errors as plain dicts, lists and strings (DRF's shape, without its wrappers)."""
    if isinstance(detail, Mapping):
        return {key: error_fields(value) for key, value in detail.items()}
    if isinstance(detail, list):
        return [error_fields(value) for value in detail]
    return str(detail)


def error_lines(detail: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], str]]:
    """Field errors as ``(path, message)`` pairs, in order (``path``: the keys and indexes
    down to the field, ``non_field_errors`` left out)."""
    if isinstance(detail, Mapping):
        lines = []
        for key, value in detail.items():
            inner = path if key == api_settings.NON_FIELD_ERRORS_KEY else (*path, key)
            lines += error_lines(value, inner)
        return lines
    if isinstance(detail, list):
        lines = []
        for index, value in enumerate(detail):
            # A list of messages, or a list serializer's errors by item ({} for a valid one).
            lines += error_lines(value, path if isinstance(value, str) else (*path, index))
        return lines
    return [(path, str(detail))]


def error_message(detail: Any) -> str:
    """Field errors in one line, each after its field in words (``plan_words.field_label``):

    >>> from django.utils import translation
    >>> with translation.override("en"):
    ...     error_message({"stages": {2: {"series": {"target": ["must be odd"]}}}})
    'Stage 3, series length: must be odd'
    """
    parts = []
    for path, message in error_lines(detail):
        label = field_label(path)
        parts.append(f"{label}: {message}" if label else message)
    return "; ".join(parts)
