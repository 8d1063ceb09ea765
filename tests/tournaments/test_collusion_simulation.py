"""``simulate_tournament --collusion-pairs`` (issue 24): colluding bots seated like any others,
bound to their partner at shared tables, with the answer key only in the command's output."""

from __future__ import annotations

import json
from collections import Counter
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
from tournaments.models import Entry, Player, Table
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


def test_pairs_drawn_within_groups_take_both_partners_from_one_group() -> None:
    groups = [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    plan = CollusionPlan.draw(
        players=10, pairs=4, policy="squeeze", strength=1.0, seed="g", within=groups
    )
    group_of = {p: i for i, group in enumerate(groups) for p in group}
    assert all(group_of[a] == group_of[b] for a, b in plan.pairs)
    # every group has its pair before any has a second
    assert sorted(Counter(group_of[a] for a, _b in plan.pairs).values()) == [1, 1, 2]
    with pytest.raises(ValueError, match="groups"):
        CollusionPlan.draw(
            players=10,
            pairs=5,
            policy="squeeze",
            strength=1.0,
            seed="g",
            within=[[0, 1, 2], [3, 4, 5], [6, 7, 8, 9]],
        )


@pytest.mark.django_db(transaction=True)
def test_group_seating_puts_partners_in_one_round_robin_group(
    eager_jobs: None, tmp_path: Path
) -> None:
    # given 16 bots in 4 round-robin groups of 4 (a table each) and 3 pairs drawn by group
    out = tmp_path / "pairs.json"
    call_command(
        "simulate_tournament",
        players=16,
        plan="rr:4:4:per_table=1,knockout:4:1",
        seed="grouped",
        collusion_pairs=3,
        collusion_policy="squeeze",
        collusion_seating="group",
        collusion_out=str(out),
        no_progress=True,
        stdout=StringIO(),
    )
    # then each pair sat at its group's table, together
    key = json.loads(out.read_text())
    first = Table.objects.filter(round__stage__order=1)
    for pair in key["pairs"]:
        assert any(
            set(pair["entries"]) <= set(t.seats.values_list("entry_id", flat=True)) for t in first
        )


def test_group_seating_needs_a_round_robin_first_stage() -> None:
    with pytest.raises(CommandError, match="rr"):
        call_command(
            "simulate_tournament",
            players=8,
            plan="swiss:4:2",
            collusion_pairs=1,
            collusion_seating="group",
        )


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
