"""The console names its models as Russian grammar asks: counts with the noun's plural form
("5 турниров"), titles with the name as the verb's object ("Выберите участника для
изменения"), and money to its currency's minor unit ("1 000,00 ₽")."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib import admin
from django.contrib.auth.models import User
from django.db import models
from django.test import Client
from django.urls import reverse
from django.utils import translation

from games.admin import GameChangeList
from games.models import Game
from tests.builders import ConsoleEvent, make_tournament
from tests.factories import BotPlayerFactory
from tests.site.test_console_language import visible_text
from tournaments.console.admin_base import ConsoleAdmin, ConsoleChangeList
from tournaments.console.naming import accusative, counted, page_title
from tournaments.console.records import ResultChangeList
from tournaments.models import AuditEvent, Entry, League, Tournament
from tournaments.money import money

CONSOLE_MODELS = [m for m, a in admin.site._registry.items() if isinstance(a, ConsoleAdmin)]


@pytest.mark.parametrize(
    ("count", "text"),
    [
        (1, "1 турнир"),
        (2, "2 турнира"),
        (5, "5 турниров"),
        (11, "11 турниров"),
        (21, "21 турнир"),
        (22, "22 турнира"),
        (25, "25 турниров"),
        (0, "0 турниров"),
        (112, "112 турниров"),
    ],
)
def test_a_count_of_tournaments_takes_the_russian_plural_form(count: int, text: str) -> None:
    with translation.override("ru"):
        assert counted(Tournament, count) == text


def test_counts_of_other_models_in_russian_and_english() -> None:
    with translation.override("ru"):
        assert [counted(Entry, n) for n in (1, 3, 5)] == [
            "1 участник",
            "3 участника",
            "5 участников",
        ]
        assert counted(AuditEvent, 5) == "5 записей журнала"
        assert counted(League, 21) == "21 лига"
    with translation.override("en"):
        assert counted(Tournament, 1) == "1 tournament"
        assert counted(Entry, 22) == "22 entries"
        assert counted(AuditEvent, 2) == "2 audit log entries"


def test_titles_put_the_name_in_the_accusative() -> None:
    with translation.override("ru"):
        assert page_title(Entry, "select_to_change") == "Выберите участника для изменения"
        assert page_title(Tournament, "select_to_change") == "Выберите турнир для изменения"
        assert page_title(League, "add") == "Добавить лигу"
        assert page_title(AuditEvent, "view") == "Просмотреть запись журнала"
    with translation.override("en"):
        assert page_title(Entry, "select_to_change") == "Select entry to change"


@pytest.mark.parametrize("model", CONSOLE_MODELS, ids=lambda m: m._meta.label)
def test_every_console_model_has_its_russian_forms(model: type[models.Model]) -> None:
    # without them a page would fall back to Django's nominative ("5 турниры")
    with translation.override("ru"):
        one, few, many = (counted(model, n).split(" ", 1)[1] for n in (1, 2, 5))
        nominative = str(model._meta.verbose_name), str(model._meta.verbose_name_plural)
        as_object = accusative(model)
    assert one == nominative[0]
    assert many not in (few, nominative[1])
    assert not as_object.isascii() and not many.isascii()


@pytest.mark.parametrize(
    ("language", "amount", "code", "text"),
    [
        ("ru", "1000.000", "RUB", "1\xa0000,00\xa0₽"),
        ("en", "1000.000", "RUB", "1,000.00\xa0RUB"),
        ("ru", "1234567.5", "RUB", "1\xa0234\xa0567,50\xa0₽"),
        ("en", "1234567.5", "RUB", "1,234,567.50\xa0RUB"),
        ("ru", "150000", "JPY", "150\xa0000\xa0JPY"),
        ("en", "150000.000", "JPY", "150,000\xa0JPY"),
        ("ru", "12.5", "KWD", "12,500\xa0KWD"),
        ("ru", "0", "EUR", "0,00\xa0€"),
        ("en", "0.005", "USD", "0.01\xa0USD"),
        ("ru", "1261.349", "RUB", "1\xa0261,35\xa0₽"),
        ("en", "12.30", "XTS", "12.3\xa0XTS"),  # a code the scoring does not know: as stored
    ],
)
def test_money_is_shown_to_the_currencys_minor_unit(
    language: str, amount: str, code: str, text: str
) -> None:
    with translation.override(language):
        assert money(Decimal(amount), code) == text


@pytest.mark.django_db
def test_the_tournament_list_counts_and_titles_in_russian(client: Client, staff_user: User) -> None:
    # given five tournaments, one with a fee of a thousand
    for number in range(5):
        make_tournament([], name=f"Кубок {number}", entry_fee="1000" if number == 0 else "100")
    client.force_login(staff_user)

    # when the console's list of tournaments is opened in Russian (the site's default)
    page = visible_text(client, reverse("admin:tournaments_tournament_changelist"))

    # then the count, the title and the fee read as Russian writes them
    assert "5 турниров" in page
    assert "Выберите турнир для изменения" in page
    assert "турниры" not in page.replace("Турниры", "")  # no nominative plural after a count
    assert "1 000,00 ₽" in page.replace("\xa0", " ")
    assert "1000,000" not in page
    # and the link that selects every page's rows (shown past a page) counts them too
    listing = client.get(reverse("admin:tournaments_tournament_changelist"))
    with translation.override("ru"):
        assert listing.context["cl"].select_all_label == "Выбрать всё: 5 турниров"


@pytest.mark.django_db
def test_the_entry_list_and_the_league_form_in_russian(client: Client, staff_user: User) -> None:
    tournament = make_tournament([], name="Кубок")
    client.force_login(staff_user)
    entries = visible_text(
        client,
        reverse("admin:tournaments_entry_changelist") + f"?tournament__id__exact={tournament.pk}",
    )
    assert "Выберите участника для просмотра" in entries and "0 участников" in entries
    add = visible_text(client, reverse("admin:tournaments_league_add"))
    assert "Добавить лигу" in add and "Добавить лига" not in add
    leagues = visible_text(client, reverse("admin:tournaments_league_changelist"))
    assert "Добавить лигу" in leagues and "0 лиг" in leagues


@pytest.mark.django_db
def test_a_locked_fee_shows_its_amount_on_the_tournament_page(
    client: Client, staff_user: User, open_tournament: Tournament
) -> None:
    # given an event whose fees are fixed (it is running)
    Tournament.objects.filter(pk=open_tournament.pk).update(
        status=Tournament.Status.RUNNING, entry_fee=Decimal("1500"), guarantee=Decimal("20000")
    )
    client.force_login(staff_user)
    client.cookies["django_language"] = "en"

    response = client.get(reverse("admin:tournaments_tournament_change", args=[open_tournament.pk]))

    # then the add page's field shows it, locked, as typed (not the stored 1500.000)
    settings = response.context["adminform"].form.plan.settings
    assert settings["entry_fee"].value() in ("1500", Decimal("1500"))
    assert settings.fields["entry_fee"].disabled
    assert "1500.000" not in response.content.decode()
    assert "View tournament" in visible_text(
        client, reverse("admin:tournaments_tournament_change", args=[open_tournament.pk])
    )


@pytest.mark.django_db
def test_the_front_page_counts_entries_and_shows_the_fee_as_money(client: Client) -> None:
    # given an open public event with five entries and a fee of 1 500
    make_tournament(
        BotPlayerFactory.create_batch(5), name="Кубок", entry_fee="1500", is_public=True
    )

    # when the front page is opened in Russian
    page = visible_text(client, reverse("home")).replace("\xa0", " ")

    # then the count takes its plural form and the fee is money
    assert "5 участников" in page and "5 участники" not in page
    assert "1 500,00 ₽" in page


@pytest.mark.django_db
def test_payouts_and_the_prize_pool_are_money_in_the_console(
    client: Client, organiser: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    a, _b = console_events
    client.force_login(organiser)
    payouts = visible_text(client, reverse("admin:tournaments_payout_changelist"))
    payout = visible_text(
        client, reverse("admin:tournaments_payout_change", args=[a.payout.pk])
    ).replace("\xa0", " ")
    pools = visible_text(client, reverse("admin:tournaments_prizepool_changelist"))
    pool = a.prize_pool

    assert "360,00 ₽" in payouts.replace("\xa0", " ") and "360,000" not in payouts
    assert "Сумма: 360,00 ₽" in payout and "1 выплата" in payouts
    with translation.override("ru"):
        total = money(pool.total, "RUB")
    assert total.replace("\xa0", " ") in pools and "1 призовой фонд" in pools


@pytest.mark.django_db
def test_lists_of_their_own_keep_their_ways_and_take_the_words(
    client: Client, organiser: User, console_events: tuple[ConsoleEvent, ConsoleEvent]
) -> None:
    # the games' list reads the players' names in one query; the results' list likewise
    client.force_login(organiser)
    games = client.get(reverse("admin:games_game_changelist"))
    results = client.get(reverse("admin:tournaments_tableresult_changelist"))
    assert isinstance(games.context["cl"], GameChangeList)
    assert isinstance(games.context["cl"], ConsoleChangeList)
    assert isinstance(results.context["cl"], ResultChangeList)
    count = Game.objects.filter(table__round__stage__tournament=console_events[0].tournament)
    with translation.override("ru"):
        assert games.context["cl"].counted == counted(Game, count.count())
        assert "Выберите партию для просмотра" in games.content.decode()
        assert "1 результат стола" in results.content.decode()
