"""``games.rows``: the live action's plain statements read and write exactly what the ORM does."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from games import rows, services
from games.models import Game, GameAction


def field_values(obj: Game | GameAction) -> dict[str, object]:
    return {f.attname: getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields}


def test_a_locked_read_equals_the_orm_read(game: Game) -> None:
    with transaction.atomic():
        locked = rows.lock_one(Game, "id = %s", [game.pk])
    assert locked is not None and not locked._state.adding
    assert field_values(locked) == field_values(Game.objects.get(pk=game.pk))
    assert rows.lock_one(Game, "id = %s", [game.pk + 1000]) is None


def test_the_order_picks_the_row(game: Game) -> None:
    second = services.game_create(rules={}, players=game.players, seed="rows-seed-2")
    found = rows.lock_one(Game, "id IN (%s, %s)", [game.pk, second.pk], order="id DESC")
    assert found is not None and found.pk == second.pk


def test_update_writes_json_datetimes_and_booleans_as_the_orm_reads_them(game: Game) -> None:
    deadline = timezone.now().replace(microsecond=0) + timedelta(minutes=3)
    game.log_tail = [{"seq": 1, "kind": "player", "type": "take", "seat": 1, "note": "ё"}]
    game.result, game.deadline, game.seed_revealed = {"places": [0, 1]}, deadline, True
    rows.update(game, ["log_tail", "result", "deadline", "seed_revealed"])
    stored = Game.objects.get(pk=game.pk)
    assert stored.log_tail == game.log_tail and stored.result == {"places": [0, 1]}
    assert stored.deadline == deadline and stored.seed_revealed is True
    assert stored.state == game.state  # fields not named are left alone


def test_insert_sets_the_key_and_the_creation_time(game: Game) -> None:
    entry = GameAction(game=game, seq=1, seat=0, action={"type": "take"}, client_id="c-1")
    rows.insert(entry)
    assert entry.pk is not None and entry.created_at is not None
    assert field_values(GameAction.objects.get(pk=entry.pk)) == field_values(entry)
