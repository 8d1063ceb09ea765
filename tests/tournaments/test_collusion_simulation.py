"""``simulate_tournament --collusion-pairs`` (issue 24): colluding bots seated like any others,
bound to their partner at shared tables, with the answer key only in the command's output."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from games.engine import Rules
from games.engine.actions import THROW, TRANSFER
from games.models import Game
from games.services.fairness import replay_log
from tests.builders import six_bots_with_a_colluding_pair
from tournaments.models import Entry, Player
from tournaments.simulation.collusion import CollusionPlan


def test_the_pairs_are_drawn_from_the_seed() -> None:
    one = CollusionPlan.draw(players=20, pairs=3, policy="soft", strength=0.25, seed="a")
    assert one == CollusionPlan.draw(players=20, pairs=3, policy="soft", strength=0.25, seed="a")
    other = CollusionPlan.draw(players=20, pairs=3, policy="soft", strength=0.25, seed="b")
    assert one.pairs != other.pairs
    assert len({p for pair in one.pairs for p in pair}) == 6
    assert set(one.kinds) == {p for pair in one.pairs for p in pair}
    assert [one.kinds[a] for a, _b in one.pairs] == [one.kinds[b] for _a, b in one.pairs]
    assert sorted(set(one.kinds.values())) == ["soft:0.25:#0", "soft:0.25:#1", "soft:0.25:#2"]
    for bad in (
        {"pairs": 11},
        {"policy": "cheat"},
        {"strength": 1.5},
        {"policy": "squeeze", "strength": 0.123456789},
    ):
        options = {"players": 20, "pairs": 1, "policy": "soft", "strength": 1.0, "seed": "a"}
        with pytest.raises(ValueError):
            CollusionPlan.draw(**{**options, **bad})  # type: ignore[arg-type]


@pytest.mark.django_db(transaction=True)
def test_a_simulated_event_seats_colluders_who_spare_each_other(
    eager_jobs: None, tmp_path: Path
) -> None:
    # given: six bots at tables of three over two swiss rounds, then all six at the final;
    # one colluding pair
    out = StringIO()
    key = six_bots_with_a_colluding_pair(
        tmp_path / "pairs.json",
        policy="collude",
        seed="fair-1",
        collusion_seed="pair-1",
        stdout=out,
    )
    assert key["policy"] == "collude" and key["strength"] == 1.0 and key["seed"] == "pair-1"
    (pair,) = key["pairs"]
    entries = Entry.objects.filter(pk__in=pair["entries"]).select_related("player")
    players = {e.player.pk: e.player for e in entries if e.player is not None}
    assert sorted(players) == sorted(pair["players"])
    assert f"{pair['names'][0]} + {pair['names'][1]}" in out.getvalue()
    # nothing a player sees names them: their names are the other bots'
    assert all(p.display_name.startswith("Heuristic ") for p in Player.objects.all())
    # and every game binds each colluder to its partner's seat when both sit there
    a, b = pair["players"]
    met = apart = 0
    games = Game.objects.exclude(table=None)
    assert games.count() == 5  # two rounds of two tables, the final
    for game in games:
        seats = {player: seat for seat, player in enumerate(game.players)}
        for me, mate in ((a, b), (b, a)):
            if me in seats:
                expected = f"collude:1:{seats[mate]}" if mate in seats else "collude:1:-"
                assert game.bot_seats[str(seats[me])] == expected
        if a in seats and b in seats:
            met += 1
            _assert_spared(game, {seats[a]: seats[b], seats[b]: seats[a]})
        elif a in seats or b in seats:
            apart += 1
    # the final seats them together; the swiss, without repeats, apart at least once
    assert met >= 1 and apart >= 2, out.getvalue()


def _assert_spared(game: Game, partner: dict[int, int]) -> None:
    log = list(game.actions.order_by("seq").values_list("action", flat=True))
    states, complete = replay_log(Rules.from_dict(game.rules), game.seed, game.setup, log)
    assert complete and states[-1].finished
    for before, after, entry in zip(states, states[1:], log, strict=False):
        seat = entry["seat"]
        if seat in partner and entry["type"] == THROW:
            assert before.defender != partner[seat]
        if seat in partner and entry["type"] == TRANSFER:
            assert after.defender != partner[seat]


def test_colluders_need_an_individual_event() -> None:
    with pytest.raises(CommandError, match="team"):
        call_command("simulate_tournament", players=4, team_size=2, collusion_pairs=1)
