"""Seed 004's three-player double pogony, from the engine through the services to the ranks.

"В игре втроем один игрок может повесить погоны двоим оппонентам одновременно ... Если оставшиеся
два игрока уже имеют погоны, первый вышедший остается сержантом. Игрок, которому повесили погон,
повышается до старшины."
"""

from __future__ import annotations

from typing import Any

import pytest

from games import services as game_services
from games.engine import Action, Rules, from_deal
from games.models import Game
from tests.builders import make_tournament
from tests.factories import PlayerFactory
from tournaments import services
from tournaments.models import RankRecord, Round, Table, TableResult
from tournaments.scoring.ranks import compute_ranks
from tournaments.services.awards import _pogony_games

THREE_SEATS = [
    {"format": "swiss", "table_size": 3, "rounds": 1, "series": {"format": "first_to", "target": 4}}
]


def play_fixed_deal(game: Game, hands: list[list[str]], moves: list[str]) -> None:
    """Play ``game`` from a fixed deal instead of its seeded one, through the game service.

    The deal keeps the series' hooks that matter here (first attacker, pogony rank); the seed
    no longer matches the deal, which nothing in this test verifies.
    """
    rules = Rules.from_dict(game.rules)
    setup = game.setup
    deal = {"hands": hands, "stock": [], "trump": "D", "attacker": setup.get("attacker", 0)}
    state = from_deal(rules, deal, pogony_rank=setup.get("pogony_rank"))
    Game.objects.filter(pk=game.pk).update(state=state.to_dict())
    for move in moves:
        action = Action.parse(move)
        game_services.game_apply_action(
            game_id=game.pk, seat=action.seat, action=action.to_json(), version=None
        )
    game.refresh_from_db()
    assert game.is_over


@pytest.mark.django_db
def test_a_three_player_series_with_a_double_ends_with_seed_004s_ranks(eager_jobs: None) -> None:
    # given a three-player table playing first to 4 points
    tournament = make_tournament(PlayerFactory.create_batch(3), stages=THREE_SEATS)
    services.tournament_start(tournament=tournament)
    round_ = Round.objects.get(stage__tournament=tournament, number=1)
    services.round_pair(round_id=round_.pk)
    table = Table.objects.get(round=round_)
    player_at = dict(table.seats.values_list("position", "player_id"))
    entry_at = dict(table.seats.values_list("position", "entry_id"))
    first = Game.objects.get(table=table)
    assert first.setup["pogony_rank"] == "6"
    # when game 1 has no pogony (seat 0 out with a seven, seat 1 with a nine; seat 2 the fool)
    play_fixed_deal(
        first,
        [["7S"], ["8S", "9H"], ["8C", "9C"]],
        ["0 attack 7S", "1 defend 8S 7S", "2 pass", "1 attack 9H", "2 take"],
    )
    assert services.table_after_game(game_id=first.pk) == "next game"
    second = Game.objects.filter(table=table).order_by("-number").first()
    assert second is not None and second.pk != first.pk
    # from under the fool (seat 2): seat 0 attacks; still the sixes, nobody hung yet
    assert second.setup["attacker"] == 0 and second.setup["pogony_rank"] == "6"
    # and in game 2 seat 0 goes out with a six, hanging pogony on both others at once; they
    # play on, and seat 1 goes out with a six on seat 2
    play_fixed_deal(
        second,
        [["6S"], ["7S", "6H"], ["8C", "9C"]],
        ["0 attack 6S", "1 defend 7S 6S", "2 pass", "1 attack 6H", "2 take"],
    )
    assert second.result is not None
    assert second.result["hangings"] == [
        {"by": 0, "on": [1, 2], "rank": "6"},
        {"by": 1, "on": [2], "rank": "6"},
    ]
    assert services.table_after_game(game_id=second.pk) == "table finished"
    # then the series and the table result know both hangings, as one game
    table.refresh_from_db()
    assert table.series_state["games"][1]["hangings"] == second.result["hangings"]
    result = TableResult.objects.get(table=table)
    assert [(h["by"], h["on"], h["game"]) for h in result.pogony] == [
        (entry_at[0], [entry_at[1], entry_at[2]], second.pk),
        (entry_at[1], [entry_at[2]], second.pk),
    ]
    # and the ranks are seed 004's: the first of the two out stays сержант, the one hung twice
    # is старшина
    services.tournament_ranks_compute(tournament_id=tournament.pk)
    ranks = {
        r.player_id: (r.rank, r.pogony_received, r.pogony_given)
        for r in RankRecord.objects.filter(tournament=tournament)
    }
    assert ranks == {
        player_at[0]: ("", 0, 2),
        player_at[1]: ("сержант", 1, 1),
        player_at[2]: ("старшина", 2, 0),
    }


def stored(pk: int, pogony: list[dict[str, Any]]) -> TableResult:
    return TableResult(pk=pk, table_id=7, pogony=pogony)


def hanging(by: int, on: list[int], rank: str, **extra: Any) -> dict[str, Any]:
    return {"by": by, "on": on, "rank": rank, "by_player": by, "on_players": on, **extra}


def test_hangings_of_one_game_rank_as_one_game() -> None:
    rows = [
        stored(1, [hanging(10, [20], "6", game=101), hanging(30, [20], "7", game=102)]),
        stored(2, [hanging(10, [20, 30], "8", game=201), hanging(20, [30], "8", game=201)]),
    ]
    games = _pogony_games(rows)
    assert [(g.id, len(g.hangings)) for g in games] == [("1:0", 1), ("1:1", 1), ("2:0", 2)]
    table = compute_ranks(games)
    # 20 was hung in game 101 and 102, then in the double; 30 in the double twice
    assert {p: (r.rank, r.received) for p, r in table.players.items()} == {
        "10": (None, 0),
        "20": ("прапорщик", 3),
        "30": ("старшина", 2),
    }


def test_rows_stored_without_the_game_key_rank_each_hanging_alone() -> None:
    rows = [stored(3, [hanging(10, [20], "6"), hanging(30, [20], "7")])]
    games = _pogony_games(rows)
    assert [(g.id, len(g.hangings)) for g in games] == [("3:0", 1), ("3:1", 1)]
