"""The HTTP side of live tables: the fairness check, the table and tournament pages, and who
sees them."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from games import engine, services
from tests.builders import LiveTable, console_event, start_live_table
from tests.factories import console_user
from tournaments.models import Table, Tournament

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("eager_jobs")]


def client_for(user: User | None = None, language: str | None = None) -> Client:
    client = Client(headers={"accept-language": language} if language else {})
    if user is not None:
        client.force_login(user)
    return client


def adjudicate(live: LiveTable, referee: User) -> None:
    services.game_adjudicate(
        game_id=live.game.pk, places=[1, 0], fool=0, reason="тест", referee=referee
    )


# --- /games/<id>/verify and verify_game ---------------------------------------------------------


def test_verify_keeps_the_seed_secret_while_the_game_is_in_play(live_table: LiveTable) -> None:
    response = client_for().get(f"/games/{live_table.game.pk}/verify")
    assert response.status_code == 409
    assert response.json()["code"] == "seed_secret" and "seed" not in response.json()
    # the refusal in the request's language: Russian by default, English when asked for
    assert response.json()["message"] == "зерно раскрывается, когда партия окончена"
    english = client_for(language="en").get(f"/games/{live_table.game.pk}/verify")
    assert english.json() == {
        "code": "seed_secret",
        "message": "the seed is revealed when the game ends",
    }
    with pytest.raises(CommandError, match="seed_secret"):
        call_command("verify_game", str(live_table.game.pk))


def test_verify_reveals_and_checks_the_deal_once_the_game_is_over(
    live_table: LiveTable, referee: User
) -> None:
    adjudicate(live_table, referee)
    response = client_for().get(f"/games/{live_table.game.pk}/verify")
    assert response.status_code == 200
    body = response.json()
    assert body["commitment_ok"] and body["replay_ok"]
    assert engine.seed_commitment(body["seed"]) == live_table.game.seed_commitment
    rules = engine.Rules.from_dict(live_table.game.rules)
    assert body["deal"] == engine.deal_from_seed(rules, body["seed"], **live_table.game.setup)
    out = StringIO()
    call_command("verify_game", str(live_table.game.pk), stdout=out)
    assert json.loads(out.getvalue()) == body


def test_verify_of_a_missing_game_is_404(db: None) -> None:
    response = client_for().get("/games/987654/verify")
    assert (response.status_code, response.json()["code"]) == (404, "not_found")
    with pytest.raises(CommandError, match="no game"):
        call_command("verify_game", "987654")


def test_a_private_games_check_is_for_its_players_and_referees_only(
    referee: User, outsider: User
) -> None:
    live = start_live_table(is_public=False, referees=[referee])
    adjudicate(live, referee)
    url = f"/games/{live.game.pk}/verify"
    assert client_for().get(url).status_code == 404
    assert client_for(outsider).get(url).status_code == 404
    assert client_for(live.user_at(0)).get(url).status_code == 200
    assert client_for(referee).get(url).status_code == 200


# --- /tables/<id>/ ------------------------------------------------------------------------------


def test_the_table_page_serves_players_and_spectators(live_table: LiveTable) -> None:
    url = f"/tables/{live_table.table.pk}/"
    spectator = client_for().get(url)
    assert spectator.status_code == 200
    html = spectator.content.decode()
    assert 'data-role="spectator"' in html
    assert f'data-ws-path="/ws/tables/{live_table.table.pk}/"' in html
    assert "js/table.js" in html and "css/table.css" in html
    player = client_for(live_table.user_at(0)).get(url)
    assert 'data-role="player"' in player.content.decode()
    # the page itself never carries a card: hands arrive over the socket, redacted per viewer
    for card in services.load_state(live_table.game).hand(0):
        assert f'data-card="{card}"' not in html


def test_the_table_page_refuses_outsiders_of_a_private_tournament(
    referee: User, outsider: User
) -> None:
    live = start_live_table(is_public=False, referees=[referee])
    url = f"/tables/{live.table.pk}/"
    # to outsiders, logged in or not, it does not exist: the answer of a missing table (not a
    # redirect to the login page, not a 403: either would tell that it is there)
    for user in (None, outsider):
        assert client_for(user).get(url).status_code == 404
        assert client_for(user).get(f"/tables/{live.table.pk + 1000}/").status_code == 404
    assert client_for(live.user_at(1)).get(url).status_code == 200
    assert 'data-role="referee"' in client_for(referee).get(url).content.decode()


def test_a_private_events_players_watch_its_other_tables_as_spectators(
    organiser: User, outsider: User
) -> None:
    # given a private event of two tables in play, and a player of each
    event = console_event(owner=organiser, referees=[], name="Закрытый кубок")
    Tournament.objects.filter(pk=event.tournament.pk).update(is_public=False)
    other = Table.objects.filter(round=event.round).exclude(pk=event.table.pk).get()
    watcher = event.table.seats.order_by("position")[0].player.user
    url = f"/tables/{other.pk}/"
    # when one opens the other table, then it watches it, as it reads the event's pages (a
    # spectator: no hand is shown); an outsider still finds no such table
    page = client_for(watcher).get(url)
    assert page.status_code == 200
    assert 'data-role="spectator"' in page.content.decode()
    assert client_for(watcher).get(f"/tournaments/{event.tournament.slug}/").status_code == 200
    assert client_for(outsider).get(url).status_code == 404


def test_a_missing_table_is_404(db: None) -> None:
    assert client_for().get("/tables/424242/").status_code == 404


def test_russian_by_default_and_english_on_request(live_table: LiveTable) -> None:
    url = f"/tables/{live_table.table.pk}/"
    russian = client_for().get(url).content.decode()
    assert "Взять" in russian and 'data-your-move="Ваш ход"' in russian
    english = client_for(language="en").get(url).content.decode()
    assert ">Take <kbd" in english and 'data-your-move="Your move"' in english


def test_only_a_referees_page_carries_the_referee_controls(
    live_table: LiveTable, referee: User
) -> None:
    url = f"/tables/{live_table.table.pk}/"
    for outsider in (client_for(), client_for(live_table.user_at(0))):
        html = outsider.get(url).content.decode()
        assert 'id="referee"' not in html and 'data-command="pause"' not in html
    html = client_for(referee).get(url).content.decode()
    # hidden until the socket confirms the role (the server checks every command again)
    assert '<section id="referee" class="referee-panel" hidden' in html
    for command in ("pause", "resume", "void", "adjudicate"):
        assert f'id="btn-{command}" class="btn' in html and f'data-command="{command}"' in html
    assert 'id="ruling-places"' in html and 'id="ruling-fool"' in html


def test_the_referee_controls_speak_russian_and_english(
    live_table: LiveTable, referee: User
) -> None:
    url = f"/tables/{live_table.table.pk}/"
    russian = client_for(referee).get(url).content.decode()
    assert "Управление судьи" in russian and ">Вынести решение<" in russian
    assert 'data-reason-needed="Сначала укажите причину"' in russian
    assert 'data-fool-last="Дурак занимает последнее место"' in russian
    assert 'data-error-game_not_active="Невозможно в текущем состоянии партии"' in russian
    english = client_for(referee, language="en").get(url).content.decode()
    assert "Referee controls" in english and ">Adjudicate<" in english
    assert 'data-nobody="nobody (a draw)"' in english


def test_the_ruling_is_confirmed_on_the_page_and_corrected_in_the_console(
    live_table: LiveTable, referee: User
) -> None:
    # given: the event's referee without console rights, and a console referee assigned too
    console_referee = console_user("console-referee", "referee")
    live_table.tournament.referees.add(console_referee)
    url = f"/tables/{live_table.table.pk}/"
    # when: each opens the table
    plain = client_for(referee).get(url).content.decode()
    staff = client_for(console_referee).get(url).content.decode()
    # then: both pages carry the ruling's empty choice, its checks and the confirmation dialog
    for html in (plain, staff):
        assert 'data-choose="— выберите —"' in html
        assert 'data-chosen-twice="Этот игрок уже занимает другое место"' in html
        assert 'data-withdrawn="(снят)"' in html
        assert 'data-ruling-summary="{places}; дурак: {fool}; причина: {reason}"' in html
        assert '<dialog id="ruling-confirm"' in html and ">Подтвердить<" in html
    # and only the console user is linked to the table's result page, to correct a ruling
    result_page = reverse("admin:tournaments_table_result", args=[live_table.table.pk])
    assert f'href="{result_page}">Исправить результат<' in staff
    assert 'id="referee-correct"' not in plain and result_page not in plain
    # and no player's page has any of it
    player = client_for(live_table.user_at(0)).get(url).content.decode()
    assert 'id="ruling-confirm"' not in player and result_page not in player


# --- /tournaments/<slug>/ ------------------------------------------------------------------------


def test_the_tournament_page_links_the_current_tables_and_shows_standings(
    live_table: LiveTable, referee: User
) -> None:
    url = f"/tournaments/{live_table.tournament.slug}/"
    html = client_for().get(url).content.decode()
    assert f'href="/tables/{live_table.table.pk}/"' in html
    assert all(p.display_name in html for p in live_table.players)
    adjudicate(live_table, referee)  # the table's one game ends: the stage has a result
    html = client_for().get(url).content.decode()
    assert 'class="standings"' in html


def test_a_private_tournament_page_is_hidden_from_outsiders(outsider: User) -> None:
    live = start_live_table(is_public=False)
    url = f"/tournaments/{live.tournament.slug}/"
    assert client_for().get(url).status_code == 404
    assert client_for(outsider).get(url).status_code == 404
    assert client_for(live.user_at(0)).get(url).status_code == 200
