"""Awards: prize pool, ranks and ratings (job bodies; each a pure function of stored rows).

Lock order
----------
The contract of every job here, and of any other code that locks a tournament's or a league's row
together with players' rows. Each job runs in one transaction and takes its locks in this order,
never backwards:

1. **The scope rows**: the league (league ranks, and the ranks of a league's tournament at its
   end), then the tournament (prize pool, tournament ranks, ratings), each
   ``SELECT ... FOR NO KEY UPDATE``, before reading anything computed from them. This
   serializes the jobs of one tournament (and of one league), and the claim columns
   (``ratings_applied_at``, ``ranks_computed_at``) are read under it. (Registration and the
   start lock the tournament ``FOR UPDATE``, which conflicts with it just the same.) Nothing
   locks a tournament and then its league.
2. **The players' rows**, in primary-key order, in one
   ``SELECT ... WHERE id IN (...) ORDER BY id FOR NO KEY UPDATE``: every player the job rates or
   ranks (:func:`_lock_players`; a job that ranks a tournament and its league locks both sets in
   that one statement). Two jobs that share players (a player in two tournaments, a league's
   ranks and a tournament's ratings) then meet in the same order and one waits.
3. **The scope's own rows**: the prize pool and payouts (in place order), rank records and
   rating changes (in player order).

Why ``NO KEY UPDATE`` and not ``FOR UPDATE``: Django declares foreign keys
``DEFERRABLE INITIALLY DEFERRED``, so inserting a row that references a tournament, a league, a
player or an entry makes PostgreSQL take ``FOR KEY SHARE`` on the referenced row *at COMMIT*.
``FOR UPDATE`` conflicts with that, ``FOR NO KEY UPDATE`` does not, and none of these jobs changes
a key. The deadlock this avoids (issue #13: ranks left uncomputed in 3 of 9 tournaments): the
ranks job committing its rank records (``KEY SHARE`` on the players, then on the tournament)
while the ratings job holds the tournament ``FOR UPDATE`` and asks for the same players
``FOR UPDATE``.

The round jobs (``progression``) take a round's row and then its tournament's (finishing); the
jobs here never lock a round, so the two orders cannot meet in a cycle.

**The feed** (``tournaments.services.feed.tournament_changed``) updates the tournament row, so
every service calls it as the last statement of its transaction, after all its other locks:
the round, table and entry services then lock the tournament last, in the same order as the
round jobs above. The jobs here hold the tournament row from step 1 already and announce last
(after step 3), so the announcement takes no new lock.

Each public job is wrapped in :func:`durak_site.dbretry.atomic_retry`: one transaction per
attempt, rerun (at most 5 attempts, jittered exponential backoff) if PostgreSQL aborts it for a
deadlock or a serialization failure anyway, e.g. against code that does not follow this order.
A job that still fails has changed nothing (its transaction rolled back, no claim stamped): the
reconciler (``tournaments.reconcile``) finds the tournament without its awards and sends the job
again. Each job is safe to run twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext

from durak_site.dbretry import atomic_retry
from tournaments import adapters, selectors
from tournaments.errors import (
    AwardsError,
    StateError,
)
from tournaments.models import (
    Entry,
    League,
    Payout,
    Player,
    PrizePool,
    RankRecord,
    RatingChange,
    Seat,
    TableResult,
    Tournament,
)
from tournaments.scoring.errors import ScoringError
from tournaments.scoring.prizes import Payment, compute_prizes
from tournaments.scoring.ranks import DEFAULT_LADDER, RankGame, RankTable, compute_ranks
from tournaments.scoring.ratings import Rating, rate, rated_table
from tournaments.scoring.results import Pogony as ScoringPogony
from tournaments.scoring.results import TableResult as PureResult
from tournaments.selectors import facts
from tournaments.selectors.places import field_entries
from tournaments.services.bulk import rows_update
from tournaments.services.feed import tournament_changed

#: Rows per statement of the awards' bulk writes.
AWARDS_BATCH = 1000


def _lock_tournament(tournament_id: int) -> Tournament:
    """Step 1 of the lock order for a tournament's jobs."""
    return Tournament.objects.select_for_update(no_key=True).get(pk=tournament_id)


def _lock_players(ids: Iterable[int]) -> dict[int, Player]:
    """Step 2 of the lock order: the players ``ids``, locked in primary-key order."""
    locked = Player.objects.select_for_update(no_key=True).filter(pk__in=set(ids)).order_by("pk")
    return {player.pk: player for player in locked}


@atomic_retry
def prize_pool_compute(*, tournament_id: int) -> PrizePool:
    """Compute the pool and payouts: provisional before the end, final after it. Recomputing
    gives the same answer; payouts are replaced in one transaction.

    The pool is the field's fees (``selectors.places.field_entries``: every entry that started,
    withdrawn and disqualified ones included; before the start, every entry not withdrawn). The
    structure is chosen for the whole field (``selectors.events.payout_structure_used``); the
    payouts go by final place to the entries not disqualified (they hold places 1 to n - k, the
    disqualified share the last place and are paid nothing), and add up to the pool exactly
    (``docs/leaving.md``).

    Locks the tournament row (step 1), then writes the pool and the payouts (step 3); no player.
    Announced on the feed last.
    """
    tournament = _lock_tournament(tournament_id)
    entries = list(field_entries(tournament))
    payments = [Payment("entry", tournament.entry_fee) for e in entries if e.paid]
    if tournament.reentry_fee:
        payments += [
            Payment("re_entry", tournament.reentry_fee) for e in entries for _ in range(e.reentries)
        ]
    final = tournament.status == Tournament.Status.FINISHED
    field_size = len(entries)
    paid_places = sorted(
        (
            (str(e.pk), e.final_place)
            for e in entries
            if e.final_place is not None and e.status != Entry.Status.DISQUALIFIED
        ),
        key=lambda pair: (pair[1], int(pair[0])),
    )
    unplaced = sum(e.final_place is None for e in entries)
    if final and unplaced:
        raise AwardsError(
            gettext("prize pool: %(count)s entries of the field have no final place")
            % {"count": unplaced},
            code="unplaced",
            params={"count": unplaced},
        )
    places = paid_places if final else None
    try:
        report = compute_prizes(
            adapters.pool_rules(tournament),
            payments,
            final_places=places or None,
            field_size=field_size if not places else None,
            structure=adapters.payout_structure(tournament, max(1, field_size)),
        )
    except ScoringError as exc:
        raise AwardsError(
            gettext("prize pool: %(problem)s") % {"problem": exc},
            code=exc.code or "scoring",
            params=exc.params or {"problem": str(exc)},
        ) from None
    pool, _ = PrizePool.objects.update_or_create(
        tournament=tournament,
        defaults={
            "gross": report.pool.gross,
            "rake": report.pool.rake,
            "total": report.pool.total,
            "currency": report.pool.currency.code,
            "paid_entries": len(payments),
            "final": report.final,
        },
    )
    Payout.objects.filter(tournament=tournament).delete()
    Payout.objects.bulk_create(
        Payout(
            tournament=tournament,
            entry_id=int(award.entry),
            place=award.place,
            amount=award.amount,
            final=True,
        )
        for award in report.awards
        if award.amount
    )
    tournament_changed(
        tournament_id=tournament.pk,
        event="awards_computed",
        data={"what": "prize_pool", "final": report.final, **facts.payouts(tournament)},
    )
    _announce_completed(tournament)
    return pool


def _pogony_games(results: Sequence[TableResult]) -> list[RankGame]:
    """Every game with pogony, in the order played, with players (not entries) as names.

    A table result stores its series' hangings in order, each with the ``game`` it came from:
    the hangings of one game (seed 004's three-player double, then the pogony of the second out
    on the fool) make one :class:`RankGame`, so the ranks apply seed 004's rule. A hanging
    without ``game`` (rows stored before it existed, a referee's entry) is a game of its own.
    """
    games = []
    for result in results:
        grouped: dict[Any, tuple[int, list[ScoringPogony]]] = {}
        for i, hung in enumerate(result.pogony or []):
            hanging = ScoringPogony(
                by=str(hung["by_player"]),
                on=tuple(str(p) for p in hung["on_players"]),
                rank=str(hung.get("rank", "")),
            )
            game = hung.get("game")
            key = ("hanging", i) if game is None else ("game", game)
            grouped.setdefault(key, (i, []))[1].append(hanging)
        for first, hangings in grouped.values():
            games.append(
                RankGame(
                    id=f"{result.pk}:{first}",
                    hangings=tuple(hangings),
                    series=str(result.table_id),
                )
            )
    return games


def _rank_table(results: Sequence[TableResult], ladder: Sequence[str]) -> RankTable:
    """The fold of ``results``' pogony into ranks (pure: no lock, no write)."""
    return compute_ranks(_pogony_games(results), ladder or DEFAULT_LADDER)


def _ranked_ids(table: RankTable) -> list[int]:
    return sorted(int(row.player) for row in table.players.values())


def _store_ranks(table: RankTable, **scope: Any) -> int:
    """Replace the rank records of ``scope`` (a tournament or a league, locked by the caller, as
    are the ranked players: steps 1 and 2) by ``table``, in player order (step 3); returns how
    many players are ranked."""
    ranked = sorted(table.players.values(), key=lambda row: int(row.player))
    ids = [int(row.player) for row in ranked]
    RankRecord.objects.filter(**scope).exclude(player_id__in=ids).delete()
    for row in ranked:
        RankRecord.objects.update_or_create(
            player_id=int(row.player),
            **scope,
            defaults={
                "rank": row.rank or "",
                "pogony_received": row.received,
                "pogony_given": row.given,
                "history": [
                    {"game": h.game, "by": h.by, "before": h.before, "after": h.after}
                    for h in table.history
                    if h.player == row.player
                ],
            },
        )
    return len(ids)


def _effective_rows(results: Any) -> list[TableResult]:
    return list(results.effective().order_by("created_at", "id"))


@atomic_retry
def tournament_ranks_compute(*, tournament_id: int) -> int:
    """Ranks (звания) of a tournament from its stored pogony; returns how many players it ranked.

    Once the tournament has finished the job claims the work: it computes the ranks, and those
    of its league's season (which count this tournament now), stamps ``ranks_computed_at``, and
    a later run finds the stamp and changes nothing (returns 0). One claim for both, so that the
    reconciler, which sees the stamp, never leaves a league without a finished tournament's
    pogony. Before the end it computes provisional ranks and stamps nothing.

    Locks the league row, if any, then the tournament row (step 1), then every ranked player of
    both (step 2), then writes the rank records (step 3). Announced on the feed last.
    """
    expected_league = Tournament.objects.values_list("league_id", flat=True).get(pk=tournament_id)
    league = _lock_league(expected_league) if expected_league is not None else None
    tournament = _lock_tournament(tournament_id)
    if tournament.league_id != expected_league:
        # Moved to another league between the read and the lock: the order above would break.
        raise StateError(gettext("the tournament's league changed while its ranks were computed"))
    finished = tournament.status == Tournament.Status.FINISHED
    if finished and tournament.ranks_computed_at is not None:
        return 0
    ladder = league.rank_ladder if league is not None else []
    own = _rank_table(
        _effective_rows(TableResult.objects.filter(table__round__stage__tournament=tournament)),
        ladder,
    )
    season = None
    if finished and league is not None:
        season = _rank_table(_league_rows(league), league.rank_ladder)
    _lock_players([*_ranked_ids(own), *(_ranked_ids(season) if season else [])])
    count = _store_ranks(own, tournament=tournament)
    if season is not None:
        _store_ranks(season, league=league)
    if finished:
        tournament.ranks_computed_at = timezone.now()
        tournament.save(update_fields=["ranks_computed_at"])
    tournament_changed(
        tournament_id=tournament.pk,
        event="awards_computed",
        data={"what": "ranks", "final": finished, "ranks": facts.ranks(tournament)},
    )
    _announce_completed(tournament)
    return count


def _lock_league(league_id: int) -> League:
    """Step 1 of the lock order for a league's jobs (before any of its tournaments)."""
    return League.objects.select_for_update(no_key=True).get(pk=league_id)


def _league_rows(league: League) -> list[TableResult]:
    return _effective_rows(
        TableResult.objects.filter(table__round__stage__tournament__league=league)
    )


@atomic_retry
def league_ranks_compute(*, league_id: int) -> int:
    """Ranks of a league season over all its tournaments' stored pogony; returns how many
    players are ranked. A recomputation from scratch: running it again gives the same rows.
    (A tournament's end recomputes them in its own ranks job.)

    Locks the league row (step 1), then the ranked players (step 2), then writes the league's
    rank records (step 3); no tournament row.
    """
    league = _lock_league(league_id)
    season = _rank_table(_league_rows(league), league.rank_ladder)
    _lock_players(_ranked_ids(season))
    return _store_ranks(season, league=league)


@atomic_retry
def ratings_update(*, tournament_id: int) -> int:
    """Apply a finished tournament's tables to its players' OpenSkill ratings, once; returns how
    many players it rated.

    The job claims the work with ``ratings_applied_at`` (a second run returns 0), and the
    ``(player, tournament)`` rating change is unique as the last guard.

    Locks the tournament row (step 1), then the rated players (step 2), then writes their
    rating changes and ratings (step 3). Announced on the feed last.
    """
    tournament = _lock_tournament(tournament_id)
    if tournament.status != Tournament.Status.FINISHED:
        raise StateError(gettext("ratings change when the tournament has finished"))
    if tournament.ratings_applied_at is not None:
        return 0
    results = _effective_rows(
        TableResult.objects.filter(table__round__stage__tournament=tournament)
    )
    seats = Seat.objects.filter(table__round__stage__tournament=tournament)
    players_of: dict[int, list[str]] = {}
    for entry_id, player_id in seats.values_list("entry_id", "player_id").distinct():
        players_of.setdefault(entry_id, [])
        if str(player_id) not in players_of[entry_id]:
            players_of[entry_id].append(str(player_id))
    tables = []
    for row in results:
        pure = selectors.to_pure_result(row)
        if pure.is_bye:
            continue  # nothing to learn; a team's bye seats one of its players, not its team
        teams = [players_of[int(e)] for e in pure.places]
        if any(len(t) > 1 for t in teams):
            rated = rated_table(_expand_teams(pure, teams), teams=teams)
        else:
            rated = rated_table(
                _rename(pure, {e: t[0] for e, t in zip(pure.places, teams, strict=True)})
            )
        if rated is not None:
            tables.append(rated)
    players = _lock_players(int(p) for t in tables for side in t.sides for p in side)
    before = {str(pk): Rating(p.rating_mu, p.rating_sigma) for pk, p in players.items()}
    after = rate(before, tables)
    changes = []
    for pk, player in players.items():  # primary-key order
        new = after[str(pk)]
        changes.append(
            RatingChange(
                player=player,
                tournament=tournament,
                mu_before=player.rating_mu,
                sigma_before=player.rating_sigma,
                mu_after=new.mu,
                sigma_after=new.sigma,
            )
        )
        player.rating_mu, player.rating_sigma = new.mu, new.sigma
    RatingChange.objects.bulk_create(changes, batch_size=AWARDS_BATCH)
    rows_update(
        Player,
        ["rating_mu", "rating_sigma"],
        {pk: (p.rating_mu, p.rating_sigma) for pk, p in players.items()},
    )
    tournament.ratings_applied_at = timezone.now()
    tournament.save(update_fields=["ratings_applied_at"])
    tournament_changed(
        tournament_id=tournament.pk,
        event="awards_computed",
        data={"what": "ratings", "final": True, "ratings": facts.ratings(tournament)},
    )
    _announce_completed(tournament)
    return len(players)


def _announce_completed(tournament: Tournament) -> None:
    """After an awards job's own announcement: once the tournament has finished and its final
    prize pool, its ranks and its ratings are all computed (whichever job comes last),
    announce ``tournament_completed`` with every award (``selectors.facts.completed_facts``):
    the last event of a finished tournament (``docs/feed.md``). ``tournament``: the row the job
    locked (step 1), its claims as the job left them; a job run again that changes nothing
    announces nothing, a prize pool recomputed announces it again."""
    if tournament.status != Tournament.Status.FINISHED:
        return
    if tournament.ranks_computed_at is None or tournament.ratings_applied_at is None:
        return
    if not PrizePool.objects.filter(tournament=tournament, final=True).exists():
        return
    tournament_changed(
        tournament_id=tournament.pk,
        event="tournament_completed",
        data=facts.completed_facts(tournament),
    )


def _rename(result: PureResult, names: dict[str, str]) -> PureResult:
    """The same result with entries renamed to their players."""
    return PureResult(
        id=result.id,
        places=tuple(names[e] for e in result.places),
        fool=None if result.fool is None else names[result.fool],
        drawn=tuple(names[e] for e in result.drawn),
    )


def _expand_teams(result: PureResult, teams: Sequence[Sequence[str]]) -> PureResult:
    """A team entries' result as its players': the losing team's players lost together, and
    on a draw the drawn teams' players share the last places."""
    members = dict(zip(result.places, teams, strict=True))
    places = tuple(p for e in result.places for p in members[e])
    if result.drawn:
        drawn = tuple(p for e in result.drawn for p in members[e])
        return PureResult(id=result.id, places=places, drawn=drawn)
    fool_team = members[result.fool] if result.fool is not None else ()
    return PureResult(
        id=result.id,
        places=places,
        fool=fool_team[-1] if fool_team else None,
        team_lost=tuple(fool_team),
    )
