"""Output serializers of the events part of the API: read-only, one per shape, named uniquely
so that the OpenAPI schema has one component each (HackSoft's styleguide, its issue #134).

They render the selectors' rows (:mod:`tournaments.selectors`, the typed ones through
:mod:`tournaments.api.events.rows`; for the tournaments, the model rows), and say what each
field means for the schema's readers.
"""

from __future__ import annotations

from typing import Any

from django.db import models
from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ResolvedComponent
from rest_framework import serializers

from tournaments.api import links as linked
from tournaments.api.money import MoneyField
from tournaments.models import Round, Stage, Table, TableResult, Tournament
from tournaments.selectors.places import FinalStatus

S = serializers.Serializer[Any]


class EnumField(serializers.ChoiceField):
    """A choice field whose choices are one named component of the schema (``<name>Enum``), so
    that the many ``status`` fields of the API (a tournament's, a round's, a table's...) do
    not collide."""

    def __init__(self, enum: type[models.TextChoices], name: str, **kwargs: Any) -> None:
        super().__init__(choices=enum.choices, **kwargs)
        self.enum_name = f"{name}Enum"
        self.enum = enum


class EnumFieldExtension(OpenApiSerializerFieldExtension):  # type: ignore[no-untyped-call]
    target_class = EnumField

    def map_serializer_field(self, auto_schema: AutoSchema, direction: Any) -> Any:
        field: EnumField = self.target
        lines = "\n".join(f"* `{value}` - {label}" for value, label in field.enum.choices)
        component = ResolvedComponent(  # type: ignore[no-untyped-call]
            name=field.enum_name,
            type=ResolvedComponent.SCHEMA,
            object=field.enum_name,
            schema={"type": "string", "enum": list(field.enum.values), "description": lines},
        )
        auto_schema.registry.register_on_missing(component)
        return component.ref


class EventLeagueRefSerializer(S):
    slug = serializers.CharField()
    name = serializers.CharField()
    season = serializers.CharField()


class EventEntryRefSerializer(S):
    """An entry (a player, or a team in a team event) by id and name."""

    id = serializers.IntegerField()
    name = serializers.CharField()


# --- tournaments --------------------------------------------------------------------------------


class TournamentListItemSerializer(S):
    slug = serializers.SlugField(help_text="Identifies the tournament in every address.")
    name = serializers.CharField()
    status = EnumField(Tournament.Status, "EventTournamentStatus")
    is_public = serializers.BooleanField()
    league = EventLeagueRefSerializer(allow_null=True)
    team_size = serializers.IntegerField(help_text="1: individual; 2 or 3: a team event.")
    entries = serializers.IntegerField(
        source="entry_count", help_text="Entries registered (withdrawn ones not counted)."
    )
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    version = serializers.IntegerField(
        help_text="Counts the changes a reader can see; the feed names it too."
    )


class StageSeriesSerializer(S):
    format = EnumField(Stage.SeriesFormat, "EventSeriesFormat")
    target = serializers.IntegerField(help_text="N of best of N, P of first to P points.")


class StageAdvanceSerializer(S):
    mode = EnumField(Stage.AdvanceMode, "EventAdvanceMode")
    count = serializers.IntegerField(help_text="N of top N overall, K of top K per table/group.")


class StageScoringSerializer(S):
    points_by_place = serializers.DictField(
        child=serializers.ListField(child=serializers.FloatField()),
        help_text="Points by finishing place (first out first), keyed by table size.",
    )
    fool_pogony_penalty = serializers.FloatField(help_text="Subtracted from a fool who got pogony.")
    bye_points = serializers.FloatField()


class TournamentStageSerializer(S):
    order = serializers.IntegerField(help_text="1 for the first stage; identifies it in URLs.")
    name = serializers.CharField()
    format = EnumField(Stage.Format, "EventStageFormat")
    status = EnumField(Stage.Status, "EventStageStatus")
    table_size = serializers.IntegerField()
    rounds_planned = serializers.IntegerField(allow_null=True, help_text="Swiss: its rounds.")
    groups = serializers.IntegerField(allow_null=True, help_text="Round robin: its groups.")
    knockout_advance = serializers.IntegerField(
        allow_null=True, help_text="Knockout: how many of each table go on."
    )
    series = StageSeriesSerializer()
    advance = StageAdvanceSerializer()
    scoring = StageScoringSerializer()
    tie_breaks = serializers.ListField(
        child=serializers.CharField(),
        help_text="In the order they apply; a seeded draw settles what they leave tied.",
    )


class PrizePoolPublicSerializer(S):
    currency = serializers.CharField(help_text="ISO 4217: the currency of the amounts here.")
    gross = MoneyField(help_text="Every paid entry and re-entry fee.")
    rake = MoneyField(help_text="The organiser's share.")
    total = MoneyField(help_text="Paid out: the fees less the rake, raised to the guarantee.")
    paid_entries = serializers.IntegerField()
    final = serializers.BooleanField(help_text="Provisional until the tournament has finished.")


class TournamentPayoutSerializer(S):
    """A payout: what one entry's final place pays."""

    place = serializers.IntegerField()
    entry = EventEntryRefSerializer()
    currency = serializers.CharField(help_text="ISO 4217.")
    amount = MoneyField()


class TournamentMoneySerializer(S):
    currency = serializers.CharField(help_text="ISO 4217: the currency of every amount here.")
    entry_fee = MoneyField()
    reentry_fee = MoneyField()
    rake_percent = serializers.DecimalField(max_digits=5, decimal_places=2)
    guarantee = MoneyField(help_text="The least the pool pays; 0: none.")
    payout_structure = serializers.ListField(
        child=serializers.DecimalField(max_digits=5, decimal_places=2),
        help_text="The structure the pool is paid by: percent of the pool for place 1, 2, ... "
        "(rounded to 0.01 for reading; the payouts are computed from the exact shares, and "
        "add up to the pool). The organiser's own structure, or else (`payout_structure_default`) "
        "the default falling scale for the field's size: ceil(15%) of the entries that started "
        "(at least one) are paid, place i weighted 1/i.",
    )
    payout_structure_default = serializers.BooleanField(
        help_text="True: the organiser set no structure; the default scale applies."
    )
    prize_pool = PrizePoolPublicSerializer(allow_null=True)
    payouts = TournamentPayoutSerializer(
        many=True,
        help_text="The payouts by final place once the tournament has finished (empty before); "
        "tied places share their amounts. The same amounts as the final standings' `payout`.",
    )


class TournamentPlaySerializer(S):
    move_clock_seconds = serializers.IntegerField(help_text="0: no clock.")
    dropout_rule = EnumField(Tournament.DropoutRule, "EventDropoutRule")
    absent_bots = EnumField(Tournament.AbsentBots, "EventAbsentBots")
    absent_bots_seconds = serializers.IntegerField(
        help_text="With `absent`: how long a player's turn waits for them without a connection "
        "to the table before a bot plays for them (until they are back)."
    )
    two_person_rule = serializers.BooleanField(
        help_text="A referee's result counts once a second referee confirms it."
    )
    check_in_required = serializers.BooleanField()
    max_entries = serializers.IntegerField(allow_null=True)
    late_registration_rounds = serializers.IntegerField()


class TournamentDetailSerializer(TournamentListItemSerializer):
    registration_closed_at = serializers.DateTimeField(allow_null=True)
    changed_at = serializers.DateTimeField(allow_null=True)
    rules = serializers.DictField(
        help_text="The game rules' options that differ from the defaults, e.g. "
        '`{"variant": "transfer"}`.'
    )
    play = TournamentPlaySerializer()
    money = TournamentMoneySerializer()
    stages = TournamentStageSerializer(many=True)


# --- rounds, tables, results --------------------------------------------------------------------


class PairingExplanationSerializer(S):
    """Why a round is paired as it is (only the keys its algorithm fills are present)."""

    algorithm = EnumField(Stage.Format, "EventStageFormat", required=False)
    score_groups = serializers.ListField(child=serializers.CharField(), required=False)
    rounds = serializers.ListField(
        child=serializers.IntegerField(),
        required=False,
        help_text="Round robin: rounds per group; knockout: tables per round.",
    )
    lower_bounds = serializers.ListField(child=serializers.IntegerField(), required=False)
    advance_per_table = serializers.IntegerField(required=False, allow_null=True)
    byes = serializers.ListField(child=serializers.CharField(), required=False)
    compromises = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="What the pairing could not avoid: a repeat meeting, a club, a seat.",
    )
    waiting_for_feeders = serializers.BooleanField(required=False)


class RoundTableCountsSerializer(S):
    total = serializers.IntegerField(help_text="Tables, byes not counted.")
    finished = serializers.IntegerField()
    playing = serializers.IntegerField()
    waiting = serializers.IntegerField(help_text="Knockout: waiting for their feeding tables.")
    byes = serializers.IntegerField()


class RoundSummarySerializer(S):
    number = serializers.IntegerField()
    status = EnumField(Round.Status, "EventRoundStatus")
    paired_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    explanation = PairingExplanationSerializer()
    tables = RoundTableCountsSerializer()
    links = linked.RoundLinksSerializer()


class EventPogonySerializer(S):
    by = EventEntryRefSerializer(allow_null=True)
    on = EventEntryRefSerializer(many=True)
    rank = serializers.CharField(help_text="The card rank they were hung with: 6 ... A.")


class ResultPlaceSerializer(S):
    place = serializers.IntegerField(help_text="1 is the first out.")
    entry = EventEntryRefSerializer(allow_null=True)
    fool = serializers.BooleanField()
    drawn = serializers.BooleanField()


class TableResultPublicSerializer(S):
    """A confirmed table result."""

    id = serializers.IntegerField()
    places = ResultPlaceSerializer(many=True, help_text="First out first.")
    fool = EventEntryRefSerializer(allow_null=True, help_text="None on a draw.")
    drawn = EventEntryRefSerializer(many=True)
    team_lost = EventEntryRefSerializer(many=True)
    pogony = EventPogonySerializer(many=True)
    # A declared field, not Field.source: the metaclass takes it out of the class.
    source = EnumField(TableResult.Source, "EventResultSource")  # type: ignore[assignment]
    reason = serializers.CharField(help_text="Why a referee entered or corrected it.")
    supersedes = serializers.IntegerField(
        allow_null=True, help_text="A correction: the id of the result it replaces."
    )
    created_at = serializers.DateTimeField()


class SeriesSeatScoreSerializer(S):
    position = serializers.IntegerField()
    entry_id = serializers.IntegerField(allow_null=True)
    points = serializers.FloatField()
    fools = serializers.IntegerField()
    pogony_received = serializers.IntegerField()
    pogony_given = serializers.IntegerField()
    rank = serializers.CharField(help_text="The rank (звание) earned at this table so far.")


class SeriesScoreSerializer(S):
    format = EnumField(Stage.SeriesFormat, "EventSeriesFormat")
    target = serializers.IntegerField()
    games_played = serializers.IntegerField()
    finished = serializers.BooleanField()
    seats = SeriesSeatScoreSerializer(many=True)


class SeatPlayerSerializer(S):
    id = serializers.IntegerField()
    name = serializers.CharField()


class TableSeatSerializer(S):
    position = serializers.IntegerField(help_text="0, 1, ...: clockwise.")
    entry = EventEntryRefSerializer()
    player = SeatPlayerSerializer(help_text="Who sits here (a team's member in a team event).")
    bot = serializers.BooleanField(help_text="A bot plays this seat.")
    links = linked.SeatLinksSerializer()


class RoundTableSerializer(S):
    id = serializers.IntegerField()
    number = serializers.IntegerField()
    status = EnumField(Table.Status, "EventTableStatus")
    is_bye = serializers.BooleanField()
    score_group = serializers.CharField()
    finished_at = serializers.DateTimeField(allow_null=True)
    compromises = serializers.ListField(child=serializers.CharField())
    seats = TableSeatSerializer(many=True)
    series = SeriesScoreSerializer(allow_null=True, help_text="The series score so far.")
    result = TableResultPublicSerializer(allow_null=True, help_text="The result in force.")
    game = serializers.IntegerField(
        allow_null=True,
        help_text="The game in play (or paused) at the table, else its last game over; null "
        "before the first game.",
    )
    links = linked.TableRefLinksSerializer()


class RoundDetailSerializer(S):
    number = serializers.IntegerField()
    status = EnumField(Round.Status, "EventRoundStatus")
    paired_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    explanation = PairingExplanationSerializer()
    tables = RoundTableSerializer(many=True)
    links = linked.RoundLinksSerializer()


class ResultTableRefSerializer(S):
    id = serializers.IntegerField()
    number = serializers.IntegerField()
    round = serializers.IntegerField()
    stage = serializers.IntegerField(help_text="The stage's order.")


class ResultListItemSerializer(TableResultPublicSerializer):
    in_force = serializers.BooleanField(help_text="False once a correction has replaced it.")
    table = ResultTableRefSerializer()


# --- standings ----------------------------------------------------------------------------------


class StageStandingRowSerializer(S):
    position = serializers.IntegerField(help_text="Strict: 1, 2, 3, ... after the seeded draw.")
    place = serializers.IntegerField(
        help_text="Shared by entries tied on every tie-break (1, 2, 2, 4)."
    )
    entry_id = serializers.IntegerField()
    player_id = serializers.IntegerField(
        allow_null=True, help_text="The entry's player (`/players/{id}/`); null for a team."
    )
    name = serializers.CharField()
    points = serializers.FloatField()
    played = serializers.IntegerField()
    byes = serializers.IntegerField()
    first_places = serializers.IntegerField()
    fools = serializers.IntegerField()
    buchholz = serializers.FloatField()
    head_to_head = serializers.FloatField(
        allow_null=True, help_text="Only for entries whose tie reached this criterion."
    )
    decided_by = serializers.CharField(
        help_text="The criterion that put this row below the previous one ('draw': the seeded "
        "draw); empty on the first row."
    )
    pogony_given = serializers.IntegerField()
    pogony_received = serializers.IntegerField()


class StageStandingsSerializer(S):
    stage = serializers.IntegerField(help_text="The stage's order.")
    format = EnumField(Stage.Format, "EventStageFormat")
    status = EnumField(Stage.Status, "EventStageStatus")
    tie_breaks = serializers.ListField(child=serializers.CharField())
    rows = StageStandingRowSerializer(
        many=True, help_text="Empty for a knockout stage (see its bracket) or a pending one."
    )


class FinalStandingRowSerializer(S):
    place = serializers.IntegerField(
        help_text="The final place, competition ranking (1, 2, 2, 4, ...): every entry that "
        "started has one. An entry withdrawn after the start is placed below every entry that "
        "completed the stage it left and above those eliminated earlier; disqualified entries "
        "share the last place (n - k + 1 of n entries with k disqualified). An entry withdrawn "
        "before the start is not listed."
    )
    entry_id = serializers.IntegerField()
    player_id = serializers.IntegerField(
        allow_null=True, help_text="The player (`/players/{id}/`); null in a team event."
    )
    team_id = serializers.IntegerField(
        allow_null=True, help_text="The team, in a team event; null in an individual one."
    )
    name = serializers.CharField()
    status = EnumField(
        FinalStatus,
        "EventFinalStatus",
        help_text="How the entry ended the event: `finished` (played to the end: it completed "
        "the last stage), `eliminated` (did not advance from an earlier stage), `withdrawn` "
        "(left after the start: its results stand and its fee stays in the pool), "
        "`disqualified` (placed last, paid nothing, no league points).",
    )
    stage = serializers.IntegerField(
        allow_null=True,
        help_text="The order of the stage the entry left: the last stage it played, the one "
        "whose final order placed it.",
    )
    points = serializers.FloatField(
        help_text="The points of its confirmed results in force in that stage (`stage`), by "
        "that stage's scoring: a swiss or round-robin stage's standings points; in a knockout, "
        "what its tables there scored (a walkover its bye points). 0 with no result there. "
        "Comparable between entries that left the same stage only."
    )
    pogony_given = serializers.IntegerField()
    pogony_received = serializers.IntegerField()
    rank = serializers.CharField(help_text="The rank (звание) earned in this tournament.")
    currency = serializers.CharField(help_text="ISO 4217: the payout's currency.")
    payout = MoneyField(
        allow_null=True,
        help_text="The prize of this place in the tournament's currency; null when the place "
        "pays nothing (a disqualified entry is never paid: the places are paid over the others). "
        "The payouts add up to the prize pool exactly, which keeps the fees of the entries that "
        "left after the start.",
    )


class FinalStandingsSerializer(S):
    finished = serializers.BooleanField(help_text="Rows appear once the tournament finishes.")
    currency = serializers.CharField()
    rows = FinalStandingRowSerializer(many=True)


# --- the knockout tree --------------------------------------------------------------------------


class BracketNodeSerializer(S):
    id = serializers.IntegerField(help_text="The table's id.")
    round = serializers.IntegerField()
    number = serializers.IntegerField()
    status = EnumField(Table.Status, "EventTableStatus")
    is_final = serializers.BooleanField()
    walkover = serializers.BooleanField(
        help_text="Not played: the one entry still in took it (its result names it first), "
        "or none was left (void: no entry, no result). Entries that left are not seated."
    )
    entries = EventEntryRefSerializer(many=True, help_text="Seated, by seat.")
    byes = EventEntryRefSerializer(many=True, help_text="Entries that come here straight.")
    result = TableResultPublicSerializer(allow_null=True)
    advancing = EventEntryRefSerializer(many=True, help_text="Who goes on, from the result.")
    game = serializers.IntegerField(
        allow_null=True,
        help_text="The game in play (or paused) at the table, else its last game over; null "
        "before the first game.",
    )
    links = linked.TableRefLinksSerializer()


class BracketEdgeSerializer(S):
    from_table = serializers.IntegerField()
    place = serializers.IntegerField(help_text="The place at from_table that goes on.")
    to_table = serializers.IntegerField()


class BracketSerializer(S):
    stage = serializers.IntegerField()
    status = EnumField(Stage.Status, "EventStageStatus")
    advance_per_table = serializers.IntegerField(allow_null=True)
    rounds = serializers.IntegerField()
    nodes = BracketNodeSerializer(many=True)
    edges = BracketEdgeSerializer(many=True)


# --- leagues ------------------------------------------------------------------------------------


class LeagueListItemSerializer(S):
    slug = serializers.SlugField()
    name = serializers.CharField()
    season = serializers.CharField()
    points_scale = serializers.ListField(
        child=serializers.CharField(), help_text="League points by final place."
    )


class PlayerRatingSerializer(S):
    rating = serializers.IntegerField(
        help_text="The displayed rating: round(1500 + 40 × (μ − 3σ)), the conservative "
        "ordinal on an Elo-like scale. A new player shows 1500; a player imported with an "
        "Elo-like strength shows it until they play (the import sets μ = 25 + (Elo − 1500) / 40 "
        "with the default σ); it rises as σ shrinks with the games played.",
    )
    ordinal = serializers.FloatField(help_text="mu - 3 sigma: the figure seeding uses.")
    mu = serializers.FloatField()
    sigma = serializers.FloatField()


class LeagueTableRowSerializer(S):
    position = serializers.IntegerField()
    place = serializers.IntegerField()
    name = serializers.CharField()
    player_id = serializers.IntegerField(allow_null=True)
    team_id = serializers.IntegerField(allow_null=True)
    points = serializers.FloatField()
    played = serializers.IntegerField()
    first_places = serializers.IntegerField()
    places = serializers.ListField(
        child=serializers.IntegerField(), help_text="Its final places, best first."
    )
    decided_by = serializers.CharField()
    rank = serializers.CharField(help_text="The player's rank (звание) in the league.")
    rating = PlayerRatingSerializer(allow_null=True, help_text="The current rating; no team's.")


class LeagueTableSerializer(S):
    league = LeagueListItemSerializer()
    tournaments_counted = serializers.IntegerField()
    error = serializers.CharField(help_text="Why the table cannot be computed; empty if it can.")
    rows = LeagueTableRowSerializer(many=True)
