"""The simulator's invariant checker finds what it is there to find: a finished event that
holds passes, and each kind of broken fact is named."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.utils import timezone

from durak_site.jobs import lease_key
from tests.builders import make_tournament
from tournaments import services
from tournaments.models import AwardsFailure, Entry, Payout, Player, Round, Seat, Table, Tournament
from tournaments.simulation.invariants import InvariantChecker, competition_ranking_violations


def test_competition_ranking() -> None:
    assert competition_ranking_violations([1, 2, 2, 4, 5]) == []
    assert competition_ranking_violations([4, 1, 2, 2]) == []
    assert competition_ranking_violations([1, 1, 1]) == []
    assert competition_ranking_violations([1, 2, 2, 3])  # 3 after two seconds
    assert competition_ranking_violations([1, 3])  # a gap
    assert competition_ranking_violations([2, 3])  # no first


@pytest.mark.django_db(transaction=True)
def test_a_finished_event_holds_and_each_broken_fact_is_named(
    bot_players: list[Player], eager_jobs: None, referee: User
) -> None:
    # given a swiss event where one entry withdrew before the start and one during it
    tournament = make_tournament(
        bot_players[:9], stages=[{"format": "swiss", "table_size": 2, "rounds": 2}]
    )
    early, late = Entry.objects.filter(tournament=tournament).order_by("pk")[:2]
    services.entry_withdraw(entry=early, reason="не пришёл")
    checker = InvariantChecker(tournament)
    services.tournament_start(tournament=tournament)
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.FINISHED
    assert checker.final() == []
    # when facts are broken one by one, then each is named
    Entry.objects.filter(pk=early.pk).update(final_place=9)
    assert any("never started" in v for v in InvariantChecker(tournament).final())
    Entry.objects.filter(pk=early.pk).update(final_place=None)

    winner = Entry.objects.get(tournament=tournament, final_place=1)
    Entry.objects.filter(pk=winner.pk).update(status=Entry.Status.DISQUALIFIED)
    found = InvariantChecker(tournament).final()
    assert any("is disqualified: place 1, not the shared last place 8" in v for v in found)
    assert any("is disqualified but paid" in v for v in found)
    Entry.objects.filter(pk=winner.pk).update(status=winner.status)

    # (one that did not win, whichever the bots' play made the winner)
    late = Entry.objects.filter(tournament=tournament, final_place__gt=1).order_by("pk")[0]
    first = Entry.objects.get(tournament=tournament, final_place=1)
    Entry.objects.filter(pk=late.pk).update(status=Entry.Status.WITHDRAWN)
    Entry.objects.filter(pk=first.pk).update(final_place=None)
    found = InvariantChecker(tournament).final()
    assert any("have no final place" in v for v in found)
    Entry.objects.filter(pk=first.pk).update(final_place=1)
    # a withdrawn entry of the only stage placed above one that completed it
    above = Entry.objects.filter(tournament=tournament, final_place=1).exclude(pk=late.pk).get()
    places = {late.pk: Entry.objects.get(pk=late.pk).final_place}
    Entry.objects.filter(pk=late.pk).update(final_place=1)
    Entry.objects.filter(pk=above.pk).update(final_place=places[late.pk])
    assert any("not below" in v for v in InvariantChecker(tournament).final())
    Entry.objects.filter(pk=above.pk).update(final_place=1)
    Entry.objects.filter(pk=late.pk).update(final_place=places[late.pk], status="registered")

    payout = Payout.objects.filter(tournament=tournament).first()
    assert payout is not None
    Payout.objects.filter(pk=payout.pk).update(amount=payout.amount + Decimal("1"))
    assert any("payouts add up" in v for v in InvariantChecker(tournament).final())
    Payout.objects.filter(pk=payout.pk).update(amount=payout.amount)

    Tournament.objects.filter(pk=tournament.pk).update(ratings_applied_at=None)
    assert "the ratings were not updated" in InvariantChecker(tournament).final()
    Tournament.objects.filter(pk=tournament.pk).update(ratings_applied_at=timezone.now())

    key = lease_key("tournaments.prize_pool_compute", [tournament.pk])
    cache.set(key, "failed", 60)
    assert any("failed" in v for v in InvariantChecker(tournament).final())
    cache.delete(key)
    failure = AwardsFailure.objects.create(
        tournament=tournament,
        job=AwardsFailure.Job.RANKS,
        code="configuration",
        message="a ladder of no ranks",
        fingerprint="x",
        first_failed_at=timezone.now(),
        last_failed_at=timezone.now(),
    )
    assert any("ranks job failed" in v for v in InvariantChecker(tournament).step())
    failure.delete()
    assert InvariantChecker(tournament).final() == []


@pytest.mark.django_db(transaction=True)
def test_an_entry_seated_again_after_leaving_is_named_at_the_step(
    bot_players: list[Player], eager_jobs: None
) -> None:
    tournament = make_tournament(
        bot_players[:4], stages=[{"format": "swiss", "table_size": 2, "rounds": 2}]
    )
    services.tournament_start(tournament=tournament)
    entry = Entry.objects.filter(tournament=tournament).first()
    assert entry is not None
    Entry.objects.filter(pk=entry.pk).update(status=Entry.Status.WITHDRAWN)
    checker = InvariantChecker(tournament)
    assert checker.step() == []  # its seats so far are its played tables
    # when it is seated at a new table
    round_ = Round.objects.get(stage__tournament=tournament, number=2)
    table = Table.objects.create(round=round_, number=99, status=Table.Status.PLAYING)
    assert entry.player_id is not None
    Seat.objects.create(table=table, position=0, entry=entry, player_id=entry.player_id)
    # then the next step names it
    assert any("seated again" in v for v in checker.step())
