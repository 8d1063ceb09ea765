"""The console's fair-play review (issue 24): an event's queue, a pair's evidence and the
decision, the season's queue, as the event's referee (not a superuser) uses them; and who is
refused. The data: a simulated six-player event with a colluding pair, its fair-play job run
after each round (as ``tests/tournaments/test_fairplay_job.py``), built once for the module and
flushed afterwards; every number the pages show is compared with the stored rows."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.template.defaultfilters import floatformat
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import translation
from pytest_django import DjangoDbBlocker

from games.models import Game, GameAction
from tests.builders import pair_with_moves, six_bots_with_a_colluding_pair
from tests.conftest import jobs_in_process
from tests.factories import console_user
from tournaments import services
from tournaments.models import AuditEvent, Entry, League, PairEvidence, Player, Tournament
from tournaments.permissions import ORGANISER, REFEREE
from tournaments.selectors.fairplay import (
    THRESHOLD,
    league_pairs_flagged,
    pair_review,
    pairs_flagged,
)

pytestmark = pytest.mark.django_db

EN = {"Accept-Language": "en"}


@dataclass
class Simulated:
    tournament: Tournament
    other: Tournament  # another event of the same league, of another organiser and referee
    league: League
    colluders: tuple[int, int]
    referee: User
    organiser: User
    other_referee: User
    other_organiser: User


def simulate(tmp_path: Path) -> Simulated:
    """Six bots at tables of three over two swiss rounds, then all six at the final, one pair
    colluding at full strength; its referee, organiser and league; another event in the league."""
    with jobs_in_process():
        key = six_bots_with_a_colluding_pair(tmp_path / "pairs.json")
    (pair,) = key["pairs"]
    a, b = sorted(pair["players"])
    organiser = console_user("fp-organiser", ORGANISER)
    referee = console_user("fp-referee", REFEREE)
    other_organiser = console_user("fp-organiser-y", ORGANISER)
    other_referee = console_user("fp-referee-y", REFEREE)
    league = services.league_create(name="Лига честной игры", season="2026", actor=organiser)
    tournament = Tournament.objects.get()
    Tournament.objects.filter(pk=tournament.pk).update(created_by=organiser, league=league)
    tournament.refresh_from_db()
    tournament.referees.set([referee])
    other = Tournament.objects.create(
        name="Другой турнир", slug="fp-other", created_by=other_organiser, league=league
    )
    other.referees.set([other_referee])
    return Simulated(
        tournament, other, league, (a, b), referee, organiser, other_referee, other_organiser
    )


@pytest.fixture(scope="module")
def sim(
    django_db_setup: None, django_db_blocker: DjangoDbBlocker, tmp_path_factory: Any
) -> Iterator[Simulated]:
    fast = override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"])
    with django_db_blocker.unblock():
        try:
            with fast:
                built = simulate(tmp_path_factory.mktemp("fairplay"))
            yield built
        finally:
            call_command("flush", interactive=False, verbosity=0)


def as_user(user: User | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def queue_url(tournament: Tournament) -> str:
    return reverse("admin:tournaments_tournament_fairplay", args=[tournament.pk])


def pair_url(pair: PairEvidence) -> str:
    return reverse("admin:tournaments_tournament_fairplay_pair", args=[pair.tournament_id, pair.pk])


def season_url(league: League) -> str:
    return reverse("admin:tournaments_league_fairplay", args=[league.pk])


def the_pair(sim: Simulated) -> PairEvidence:
    """A pair of the event whose evidence names moves both ways (``pair_with_moves``)."""
    return pair_with_moves(sim.tournament)


def shown_pairs(page: str) -> list[int]:
    return [int(pk) for pk in re.findall(r'class="pair-row" data-pair="(\d+)"', page)]


# --- the event's queue -------------------------------------------------------------------------


def test_the_queue_lists_the_pairs_at_the_threshold_highest_first(sim: Simulated) -> None:
    # given every pair who met (threshold 0: those with a score of 0 or more)
    expected = list(pairs_flagged(sim.tournament, threshold=0))
    assert len(expected) >= 2
    # when the event's referee opens the queue at that threshold
    response = as_user(sim.referee).get(queue_url(sim.tournament) + "?threshold=0", headers=EN)
    # then the pairs, highest score first, each with its players, z and a link to its page
    assert response.status_code == 200
    page = response.content.decode()
    assert shown_pairs(page) == [p.pk for p in expected]
    zs = [p.z for p in expected]
    assert zs == sorted(zs, reverse=True)
    for pair in expected:
        assert pair_url(pair) in page
        assert reverse("player", args=[pair.first_id]) in page
    # and what the queue rests on: the games counted, the pairs who met, those with a score
    met = PairEvidence.objects.filter(tournament=sim.tournament)
    assert re.search(rf'id="pairs-met">{met.count()}<', page)
    assert re.search(rf'id="pairs-scored">{met.filter(variance__gt=0).count()}<', page)
    assert re.search(r'id="games-counted">5<', page)


def test_the_default_threshold_and_a_lower_one(sim: Simulated) -> None:
    client = as_user(sim.organiser)
    default = client.get(queue_url(sim.tournament), headers=EN)
    assert default.status_code == 200
    flagged = list(pairs_flagged(sim.tournament, threshold=THRESHOLD))
    assert shown_pairs(default.content.decode()) == [p.pk for p in flagged]
    # a threshold just at the colluding pair's score lists it, and nothing below it
    pair = the_pair(sim)
    bar = max(pair.z - 1e-9, 0.0)
    lower = client.get(queue_url(sim.tournament) + f"?threshold={bar:.12f}")
    assert shown_pairs(lower.content.decode()) == [
        p.pk for p in PairEvidence.objects.filter(tournament=sim.tournament, z__gte=bar)
    ]
    assert pair.pk in shown_pairs(lower.content.decode())


@pytest.mark.parametrize("bad", ["abc", "-1", "nan", "inf", "1e400", "1000"])
def test_a_bad_threshold_says_so(sim: Simulated, bad: str) -> None:
    response = as_user(sim.referee).get(queue_url(sim.tournament), {"threshold": bad}, headers=EN)
    assert response.status_code == 400
    page = response.content.decode()
    assert 'id="threshold-errors"' in page
    assert shown_pairs(page) == []


def test_the_event_page_links_the_queue(sim: Simulated) -> None:
    client = as_user(sim.referee)
    dashboard = reverse("admin:tournaments_tournament_dashboard", args=[sim.tournament.pk])
    assert queue_url(sim.tournament) in client.get(dashboard).content.decode()
    change = reverse("admin:tournaments_tournament_change", args=[sim.tournament.pk])
    assert queue_url(sim.tournament) in client.get(change).content.decode()
    league = reverse("admin:tournaments_league_change", args=[sim.league.pk])
    assert season_url(sim.league) in client.get(league).content.decode()


@pytest.mark.parametrize("who", ["other_referee", "other_organiser", "anonymous", "player"])
def test_nobody_else_reads_the_queue_or_a_pair(sim: Simulated, who: str) -> None:
    user = None if who == "anonymous" else getattr(sim, who, None)
    if who == "player":
        user = User.objects.create_user("fp-player")
        Player.objects.filter(pk=the_pair(sim).first_id).update(user=user)
    client = as_user(user)
    pair = the_pair(sim)
    for url in (queue_url(sim.tournament), pair_url(pair)):
        response = client.get(url)
        assert response.status_code in (302, 404), (url, response.status_code)
        if response.status_code == 302:
            assert reverse("admin:login") in response["Location"]
    posted = client.post(pair_url(pair), {"decision": "cleared", "reason": "no"})
    assert posted.status_code in (302, 404)
    assert not PairEvidence.objects.filter(pk=pair.pk).exclude(decision="").exists()


# --- a pair's page -----------------------------------------------------------------------------


def test_the_pair_page_shows_the_stored_terms(sim: Simulated) -> None:
    pair = the_pair(sim)
    response = as_user(sim.referee).get(pair_url(pair), headers=EN)
    assert response.status_code == 200
    page = response.content.decode()
    # every stored term, as stored: who to whom, the kind, observed, expected, variance, scored
    shown = {
        (t.mover.pk, t.kind, t.opportunities, t.observed, t.expected, t.variance, t.scored)
        for t, _label in response.context["terms"]
    }
    keys = ("mover", "kind", "opportunities", "observed", "expected", "variance")
    stored = {(*(t[k] for k in keys), bool(t["scored"])) for t in pair.terms}
    assert shown == stored and len(pair.terms) == len(response.context["terms"])
    # the scored terms' contributions add up to the pair's departure (each expected count is
    # stored to 6 decimals)
    scored = [t.departure for t, _ in response.context["terms"] if t.scored]
    assert sum(scored) == pytest.approx(pair.departure, abs=1e-6 * len(scored))
    # in the page: one row per term, its numbers as stored, in a referee's words
    row_re = r'<tr class="term[^"]*" data-kind="(\w+)" data-mover="(\d+)">(.*?)</tr>'
    rows = re.findall(row_re, page, re.S)
    assert len(rows) == len(pair.terms)
    for kind, mover, row in rows:
        term = next(t for t in pair.terms if t["kind"] == kind and t["mover"] == int(mover))
        assert f"{term['observed']} / {term['opportunities']}" in row
        # as the page rounds it (half up: 0.25 shows as 0.3, where Python's format gives 0.2)
        with translation.override("en"):
            expected = floatformat(term["expected"], 1)
        assert f"{expected} / {term['opportunities']}" in row
    assert "threw in on" in page and "took from" in page
    # the games they shared, each to its replay
    for game_id in pair.game_ids:
        assert reverse("game-replay", args=[game_id]) in page
    # the answer key of the simulation is nowhere
    kinds = set(Player.objects.exclude(bot_kind="").values_list("bot_kind", flat=True))
    assert kinds and not any(kind in page for kind in kinds)
    assert "squeeze" not in page and "bot_seats" not in page


def test_each_move_link_opens_the_replay_at_that_move(sim: Simulated) -> None:
    pair = the_pair(sim)
    client = as_user(sim.referee)
    page = client.get(pair_url(pair)).content.decode()
    links = re.findall(r'class="move-link" href="/games/(\d+)/replay/\?step=(\d+)#board"', page)
    refs = [ref for term in pair.terms for ref in term["moves"]]
    assert links and len(links) == len(refs)
    assert sorted((int(g), int(s)) for g, s in links) == sorted((g, s) for g, s in refs)
    for game_id, step in links[:6]:
        # when the referee follows the link
        replay = client.get(f"/games/{game_id}/replay/?step={step}")
        assert replay.status_code == 200
        # then the replay shows the board after that move, that move as "the move"
        action = GameAction.objects.get(game_id=int(game_id), seq=int(step))
        assert replay.context["board"].step == int(step)
        move = replay.context["move"]
        assert move.step == int(step) and move.seat == action.seat and move.kind == action.kind
        assert f'data-step="{step}"' in replay.content.decode()


def test_each_chance_not_taken_links_the_replay_at_that_move_of_the_mover(sim: Simulated) -> None:
    pair = the_pair(sim)
    client = as_user(sim.referee)
    page = client.get(pair_url(pair), headers=EN).content.decode()
    # every term's chances not taken, as stored, in its row, under their count
    row_re = r'<tr class="term[^"]*" data-kind="(\w+)" data-mover="(\d+)">(.*?)</tr>'
    link_re = r'class="missed-link" href="/games/(\d+)/replay/\?step=(\d+)#board"'
    checked = []
    for kind, mover, row in re.findall(row_re, page, re.S):
        term = next(t for t in pair.terms if t["kind"] == kind and t["mover"] == int(mover))
        links = [(int(g), int(s)) for g, s in re.findall(link_re, row)]
        assert links == [(g, s) for g, s in term["missed"]]
        assert len(links) == term["opportunities"] - term["observed"]
        if links:
            count = len(links)
            assert f"{count} chance{'s' if count > 1 else ''} not taken" in row
            checked += [(int(mover), g, s) for g, s in links[:2]]
    assert checked
    for mover, game_id, step in checked[:6]:
        # when the referee follows the link
        replay = client.get(f"/games/{game_id}/replay/?step={step}")
        assert replay.status_code == 200
        # then the replay shows the board after that move, a move of the term's mover
        action = GameAction.objects.get(game_id=game_id, seq=step)
        assert Game.objects.get(pk=game_id).players[action.seat] == mover
        assert replay.context["board"].step == step
        move = replay.context["move"]
        assert move.step == step and move.seat == action.seat and move.kind == action.kind


def test_a_game_not_over_shows_no_move_and_no_replay(sim: Simulated) -> None:
    # given one of the pair's games whose seed is not revealed (as a game in play)
    pair = the_pair(sim)
    hidden = next(g for t in pair.terms for g, _seq in t["moves"])
    Game.objects.filter(pk=hidden).update(status=Game.Status.ACTIVE, seed_revealed=False)
    # when the referee opens the pair's page
    page = as_user(sim.referee).get(pair_url(pair)).content.decode()
    # then none of that game's moves is linked, nor its replay
    assert f"/games/{hidden}/replay/" not in page
    others = [(g, s) for t in pair.terms for g, s in t["moves"] if g != hidden]
    assert len(re.findall(r'class="move-link"', page)) == len(others)
    missed = [(g, s) for t in pair.terms for g, s in t["missed"] if g != hidden]
    assert len(re.findall(r'class="missed-link"', page)) == len(missed)
    assert 'id="games-table"' in page


def test_a_decision_is_recorded_with_its_reason_and_audited(sim: Simulated) -> None:
    pair = the_pair(sim)
    client = as_user(sim.referee)
    response = client.post(pair_url(pair), {"decision": "warned", "reason": "спорные ходы"})
    assert response.status_code == 302 and response["Location"] == pair_url(pair)
    pair.refresh_from_db()
    assert pair.decision == "warned" and pair.decision_reason == "спорные ходы"
    assert pair.decided_by == sim.referee
    audit = AuditEvent.objects.get(
        action=AuditEvent.Action.FAIRPLAY_DECIDE, target_id=pair.pk, target_type="pairevidence"
    )
    assert audit.actor == sim.referee and audit.reason == "спорные ходы"
    # the pair's page and the queue show it, with who and the history
    page = client.get(pair_url(pair), headers=EN).content.decode()
    assert "Warned" in page and "fp-referee" in page and "спорные ходы" in page
    assert 'id="no-history"' not in page
    queue = client.get(queue_url(sim.tournament) + "?threshold=0", headers=EN).content.decode()
    assert "Warned" in queue


def test_a_decision_without_a_reason_is_refused_on_the_form(sim: Simulated) -> None:
    pair = the_pair(sim)
    response = as_user(sim.referee).post(pair_url(pair), {"decision": "cleared", "reason": " "})
    assert response.status_code == 200
    assert response.context["form"].errors["reason"]
    pair.refresh_from_db()
    assert pair.decision == ""
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.FAIRPLAY_DECIDE).exists()


def test_disqualifying_asks_for_a_confirmation_then_disqualifies_both(sim: Simulated) -> None:
    pair = the_pair(sim)
    client = as_user(sim.organiser)
    data = {"decision": "disqualified", "reason": "сговор"}
    # without the confirmation: the form says so, nothing changes
    first = client.post(pair_url(pair), data)
    assert first.status_code == 200 and first.context["form"].errors["confirm"]
    players = (pair.first_id, pair.second_id)
    entries = Entry.objects.filter(tournament=sim.tournament, player_id__in=players)
    assert not entries.filter(status=Entry.Status.DISQUALIFIED).exists()
    # confirmed: both entries are disqualified
    second = client.post(pair_url(pair), {**data, "confirm": "on"})
    assert second.status_code == 302
    assert entries.count() == 2
    assert entries.filter(status=Entry.Status.DISQUALIFIED).count() == 2
    pair.refresh_from_db()
    assert pair.decision == "disqualified" and pair.decided_by == sim.organiser


def test_a_referee_of_another_event_cannot_decide(sim: Simulated) -> None:
    pair = the_pair(sim)
    response = as_user(sim.other_referee).post(
        pair_url(pair), {"decision": "cleared", "reason": "чужой"}
    )
    assert response.status_code == 404
    pair.refresh_from_db()
    assert pair.decision == ""


def test_the_pages_speak_russian_by_default(sim: Simulated) -> None:
    client = as_user(sim.referee)
    queue = client.get(queue_url(sim.tournament) + "?threshold=0").content.decode()
    assert "Честная игра" in queue and "Пар с оценкой" in queue and "Fair play" not in queue
    page = client.get(pair_url(the_pair(sim))).content.decode()
    assert "подкидывал" in page and "Записать решение" in page
    assert "threw in on" not in page and "Record the decision" not in page


# --- the season --------------------------------------------------------------------------------


def test_the_season_queue_pools_the_events_its_reader_referees(sim: Simulated) -> None:
    # given the league's events: the simulated one (sim.referee's) and another (other_referee's)
    mine = Tournament.objects.filter(pk=sim.tournament.pk)
    expected = league_pairs_flagged(sim.league, threshold=0, tournaments=mine)
    assert expected
    # when the event's referee opens the league's season queue
    response = as_user(sim.referee).get(season_url(sim.league) + "?threshold=0", headers=EN)
    # then its pairs, highest first, each linking the event's pair page
    assert response.status_code == 200
    page = response.content.decode()
    assert page.count('class="pair-row"') == len(expected)
    for row in expected:
        for pair in row.pairs:
            assert pair_url(pair) in page
    first = [row.first for row, _a, _b in response.context["season"]]
    assert first == [row.first for row in expected]
    # the other event's referee sees the league, none of this event's pairs
    other = as_user(sim.other_referee).get(season_url(sim.league) + "?threshold=0")
    assert other.status_code == 200
    assert 'class="pair-row"' not in other.content.decode()
    # and a bad threshold is a 400 there too
    bad = as_user(sim.referee).get(season_url(sim.league) + "?threshold=x")
    assert bad.status_code == 400


def test_the_selector_and_the_page_agree_on_the_games(sim: Simulated) -> None:
    pair = the_pair(sim)
    review = pair_review(pair)
    assert [g.game.pk for g in review.games] == pair.game_ids
    assert all(g.replayable for g in review.games)
    fools = sum(1 for g in review.games if g.fool is not None and g.fool.pk == pair.first_id)
    assert fools == pair.first_fool
