"""The organiser's "add tournament" page: a whole stage plan in one form, the service's
refusals on the fields they are about, a preview that stores nothing, organisers only.

The page is ``TournamentAdmin.add_view``. While the admin does not hand its add view to the
console yet, this module mounts the console's view at the same address in front of the admin
(``urlpatterns`` below), so every test goes through the same URL, middleware and admin wrapper.
"""

from __future__ import annotations

import random
import time
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import pytest
from django.contrib import admin
from django.contrib.auth.models import User
from django.contrib.messages import get_messages
from django.http import HttpRequest, HttpResponse
from django.test import Client
from django.urls import URLPattern, URLResolver, path, reverse
from django.utils.html import escape
from pytest_django import Settings

from games.engine.rules import Rules
from tests.factories import UserFactory, console_user
from tests.tournaments.test_plan_messages import THREE_PROBLEMS
from tournaments.console.forms import TournamentSettingsForm
from tournaments.console.plan import PlanPreview, tournament_add_view
from tournaments.console.rules_form import RulesForm
from tournaments.console.stage_forms import StageForm
from tournaments.models import AuditEvent, League, Stage, Tournament
from tournaments.permissions import ORGANISER, REFEREE
from tournaments.plan_options import ENGINE_CHOICES, PER_TABLE_OPTIONS, RULE_CHOICES

if TYPE_CHECKING:  # the test client's response type exists in the stubs only
    from django.test.client import _MonkeyPatchedWSGIResponse as Response

ADD_URL = "/admin/tournaments/tournament/add/"


def _console_add_view(request: HttpRequest) -> HttpResponse:
    return tournament_add_view(admin.site._registry[Tournament], request)


# The admin's add address served by the console's view, the rest by the admin (used only while
# TournamentAdmin.add_view is not wired to the console).
urlpatterns: list[URLPattern | URLResolver] = [
    path("admin/tournaments/tournament/add/", admin.site.admin_view(_console_add_view)),
    path("admin/", admin.site.urls),
]


def admin_wired() -> bool:
    return "add_view" in vars(type(admin.site._registry[Tournament]))


@pytest.fixture(autouse=True)
def _add_view_at_the_admin_address(settings: Settings) -> None:
    if not admin_wired():
        settings.ROOT_URLCONF = __name__


@pytest.fixture(autouse=True)
def _in_english(client: Client) -> None:
    # The messages are checked in English (Russian, the default, is the translators').
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"


# --- the cast ----------------------------------------------------------------------------------


def _member(group: str, username: str) -> User:
    return console_user(username, group)


@pytest.fixture
def organiser(db: None) -> User:
    return _member(ORGANISER, "organiser")


@pytest.fixture
def console_referee(db: None) -> User:
    """A referee of the console (staff, the referee group): runs events, never creates one."""
    return _member(REFEREE, "console-referee")


@pytest.fixture
def own_league(organiser: User) -> League:
    return League.objects.create(name="Лига Тулы", slug="tula", season="2025", created_by=organiser)


@pytest.fixture
def organiser_client(client: Client, organiser: User) -> Client:
    client.force_login(organiser)
    return client


# --- the form data -------------------------------------------------------------------------------


def _initial(form_class: type[Any], prefix: str = "", **kwargs: Any) -> dict[str, str]:
    """What the page sends when nothing is changed: each field's initial value."""
    form = form_class(**kwargs)
    data: dict[str, str] = {}
    for name, field in form.fields.items():
        key = f"{prefix}{name}"
        value = form.get_initial_for_field(field, name)
        if isinstance(value, bool):
            if value:
                data[key] = "on"
        elif value is not None:
            data[key] = str(value)
    return data


def stage_row(index: int, **fields: str) -> dict[str, str]:
    row = {f"stages-{index}-{name}": value for name, value in _initial(StageForm).items()}
    row.update({f"stages-{index}-{name}": value for name, value in fields.items()})
    return row


SWISS = {"format": "swiss", "name": "Отбор", "table_size": "4", "rounds": "2"}
SWISS_TOP_8 = {**SWISS, "advance_rule": "top", "advance_count": "8"}
KNOCKOUT = {"format": "knockout", "name": "Финал", "table_size": "4", "advance_per_table": "2"}


def plan_data(*stages: dict[str, str], **settings: str) -> dict[str, str]:
    """A whole POST of the page: the settings, the rules at their defaults, the stage rows
    and two rows left blank (the page always has a few)."""
    data = _initial(TournamentSettingsForm, user=None)
    data.update(
        {
            "name": "Кубок Тулы",
            "max_entries": "64",
            "entry_fee": "500",
            "rake_percent": "10",
            "payout_structure": "50, 30, 20",
        }
    )
    data.update(_initial(RulesForm, prefix="rules-"))
    rows = [*stages, {}, {}]
    for index, stage in enumerate(rows):
        data.update(stage_row(index, **stage))
    data.update(
        {
            "stages-TOTAL_FORMS": str(len(rows)),
            "stages-INITIAL_FORMS": "0",
            "stages-MIN_NUM_FORMS": "0",
            "stages-MAX_NUM_FORMS": "12",
        }
    )
    data.update(settings)
    return data


def save(client: Client, data: dict[str, str]) -> Response:
    return client.post(ADD_URL, {**data, "_save": "Save"})


def preview(client: Client, data: dict[str, str]) -> Response:
    return client.post(ADD_URL, {**data, "_preview": "Preview"})


def nothing_stored() -> bool:
    return not (
        Tournament.objects.exists() or Stage.objects.exists() or AuditEvent.objects.exists()
    )


def errors_of(response: Response) -> Any:
    assert response.status_code == 200, response
    return response.context["forms"]


# --- creating ------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_an_organiser_creates_a_two_stage_plan(
    organiser_client: Client, organiser: User, own_league: League
) -> None:
    # given a swiss qualifier whose top 8 play a knockout, transfer rules, a league of its own
    data = plan_data(
        SWISS_TOP_8,
        {**KNOCKOUT, "series_format": "best_of", "series_target": "3"},
        league=str(own_league.pk),
        **{"rules-variant": "transfer", "rules-trump_show": "on", "rules-hand_size": "6"},
    )
    # when it saves
    response = save(organiser_client, data)
    # then the tournament and its stages exist, and it lands on its dashboard
    tournament = Tournament.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse(
        "admin:tournaments_tournament_dashboard", args=[tournament.pk]
    )
    assert [str(m) for m in get_messages(response.wsgi_request)] == [
        "The tournament “Кубок Тулы” was created with 2 stages."
    ]
    assert tournament.name == "Кубок Тулы"
    assert tournament.slug == "kubok-tuly"
    assert tournament.created_by == organiser
    assert tournament.league == own_league
    assert tournament.status == Tournament.Status.DRAFT
    assert tournament.is_public
    assert tournament.max_entries == 64
    assert (tournament.entry_fee, tournament.rake_percent) == (Decimal(500), Decimal(10))
    assert tournament.payout_structure == ["50", "30", "20"]
    # only the options that differ from the engine's defaults
    assert tournament.rules == {"variant": "transfer", "trump_show": True}
    swiss, knockout = tournament.stages.order_by("order")
    assert (swiss.order, swiss.name, swiss.format, swiss.table_size) == (1, "Отбор", "swiss", 4)
    assert (swiss.rounds_planned, swiss.groups, swiss.knockout_advance) == (2, None, None)
    assert (swiss.advance_mode, swiss.advance_count) == (Stage.AdvanceMode.TOP_N, 8)
    assert (swiss.series_format, swiss.series_target) == ("single", 1)
    assert (knockout.order, knockout.format, knockout.table_size) == (2, "knockout", 4)
    assert (knockout.knockout_advance, knockout.rounds_planned) == (2, None)
    assert (knockout.advance_mode, knockout.advance_count) == (Stage.AdvanceMode.NONE, 0)
    assert (knockout.series_format, knockout.series_target) == ("best_of", 3)
    # and the audit row records the plan as stored
    event = AuditEvent.objects.get()
    assert isinstance(event.after, dict)
    assert event.action == AuditEvent.Action.TOURNAMENT_CREATE
    assert (event.actor, event.tournament, event.league) == (organiser, tournament, own_league)
    assert (event.target_type, event.target_id) == ("tournament", tournament.pk)
    assert event.after["name"] == "Кубок Тулы"
    assert event.after["league"] == own_league.pk
    assert event.after["rules"] == {"variant": "transfer", "trump_show": True}
    assert [s["format"] for s in event.after["stages"]] == ["swiss", "knockout"]
    assert event.after["stages"][0]["advance"] == {"top": 8}


@pytest.mark.django_db
def test_the_page_renders_in_the_admin_with_its_fields(
    organiser_client: Client, own_league: League
) -> None:
    League.objects.create(name="Чужая лига", slug="other", season="2025")
    response = organiser_client.get(ADD_URL)
    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="site-name"' in page  # the admin's header
    assert 'class="breadcrumbs"' in page
    assert 'name="rules-variant"' in page and 'name="rules-trump_show"' in page
    assert 'name="stages-TOTAL_FORMS"' in page and 'id="stage-template"' in page
    assert 'name="_preview"' in page and 'name="_save"' in page
    # the leagues it may put an event in: its own
    leagues = response.context["forms"].settings.fields["league"].queryset
    assert list(leagues) == [own_league]


def test_every_engine_option_has_a_field() -> None:
    names = {f for f in Rules.option_names() if f not in PER_TABLE_OPTIONS}
    assert set(RulesForm().fields) == names
    laid_out = [
        name
        for _title, options in RulesForm().fieldsets()
        for line in options["fields"]
        for name in line
    ]
    assert sorted(laid_out) == sorted(names)
    for option, values in ENGINE_CHOICES.items():
        assert [value for value, _label in RULE_CHOICES[option]] == list(values)


# --- refusals on their fields ------------------------------------------------------------------


@pytest.mark.django_db
def test_an_even_best_of_is_refused_on_stage_2s_target(organiser_client: Client) -> None:
    data = plan_data(SWISS_TOP_8, {**KNOCKOUT, "series_format": "best_of", "series_target": "2"})
    forms = errors_of(save(organiser_client, data))
    first, second = forms.stages.filled_forms()
    assert first.errors == {}
    assert second.errors == {"series_target": ["must be odd for a best-of series, not 2"]}
    assert nothing_stored()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("rules", "field", "message"),
    [
        (
            {"rules-variant": "simple", "rules-throw_in_by": "neighbours"},
            "throw_in_by",
            "the simple variant has no throw-ins",
        ),
        # four hands of 7 cards are more than a 24-card deck
        (
            {"rules-deck_size": "24", "rules-hand_size": "7"},
            "hand_size",
            "for 4 players with 7 cards each, the 36-card deck is needed",
        ),
        # a transfer option without the transfer variant (sent without the page's script)
        ({"rules-transfer_over_trump": "on"}, "transfer_over_trump", "only in the transfer"),
    ],
)
def test_rules_the_engine_refuses_are_shown_on_the_rule(
    organiser_client: Client, rules: dict[str, str], field: str, message: str
) -> None:
    data = plan_data(SWISS_TOP_8, KNOCKOUT, **rules)
    response = save(organiser_client, data)
    forms = errors_of(response)
    assert list(forms.rules.errors) == [field]
    assert message in forms.rules.errors[field][0]
    assert message in response.content.decode()
    assert nothing_stored()


@pytest.mark.django_db
@THREE_PROBLEMS
def test_three_independent_problems_are_shown_at_their_fields_in_one_submit(
    organiser_client: Client, language: str, hand: str, pogony: str, payouts: str
) -> None:
    # given a hand of 40 cards at 4-seat tables of the 36-card deck, a pogony minimum of 9
    # and payouts adding up to 110, in the organiser's language
    organiser_client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    data = plan_data(
        SWISS_TOP_8,
        KNOCKOUT,
        **{"rules-deck_size": "36", "rules-hand_size": "40", "rules-pogony_min_cards": "9"},
        payout_structure="50, 30, 30",
    )
    # when it is saved once
    response = save(organiser_client, data)
    # then all three are on their fields, and nothing else is refused
    forms = errors_of(response)
    assert forms.rules.errors == {"hand_size": [hand], "pogony_min_cards": [pogony]}
    assert forms.settings.errors == {"payout_structure": [payouts]}
    assert forms.plan_errors == [] and forms.stage_list_errors == []
    assert all(not form.errors for form in forms.stages.forms)
    page = response.content.decode()
    for message in (hand, pogony, payouts):
        assert escape(message) in page
    assert nothing_stored()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"rake_percent": "120"}, "rake_percent", "the rake is a percentage from 0 to 100"),
        ({"payout_structure": "50, 30, 10"}, "payout_structure", "add up to exactly 100"),
        ({"payout_structure": "50, 30, 120"}, "payout_structure", "place 3: must be at most"),
        ({"entry_fee": "-5"}, "entry_fee", "must not be negative"),
        ({"name": " "}, "name", ""),
    ],
)
def test_settings_are_refused_on_their_field(
    organiser_client: Client, changes: dict[str, str], field: str, message: str
) -> None:
    forms = errors_of(save(organiser_client, plan_data(SWISS_TOP_8, KNOCKOUT, **changes)))
    assert field in forms.settings.errors
    assert message in " ".join(forms.settings.errors[field])
    assert nothing_stored()


@pytest.mark.django_db
def test_whole_plan_refusals_go_to_the_stage_row_or_the_top(organiser_client: Client) -> None:
    # the pairing code names the stage and its field: the field in its row
    data = plan_data(SWISS_TOP_8, {**KNOCKOUT, "advance_per_table": "4"})
    forms = errors_of(save(organiser_client, data))
    second = forms.stages.filled_forms()[1]
    assert second.errors == {
        "advance_per_table": [
            "from a table of 4 seats at most 3 go on: otherwise nobody is knocked out"
        ]
    }
    # a stage that does not say who advances
    data = plan_data(SWISS, KNOCKOUT)
    forms = errors_of(save(organiser_client, data))
    assert forms.stages.filled_forms()[0].errors == {
        "advance_rule": ["say who advances to stage 2"]
    }
    # no stage at all: above the stages
    response = save(organiser_client, plan_data())
    assert errors_of(response).stage_list_errors == ["a tournament needs at least one stage"]
    assert "a tournament needs at least one stage" in response.content.decode()
    # the form's own check: advancing needs a count
    data = plan_data({**SWISS, "advance_rule": "top"}, KNOCKOUT)
    first = errors_of(save(organiser_client, data)).stages.forms[0]
    assert first.errors == {"advance_count": ["Say how many advance."]}
    assert nothing_stored()


@pytest.mark.django_db
def test_a_bad_point_is_named_by_its_table_and_place_in_words(organiser_client: Client) -> None:
    # "1, x, 0": the points of 3-seat tables, the second place not a number
    data = plan_data({**SWISS_TOP_8, "points": "3, 2, 1, 0; 1, x, 0"}, KNOCKOUT)
    first = errors_of(save(organiser_client, data)).stages.filled_forms()[0]
    assert first.errors == {
        "points": [
            "Table of 3 seats, place 2: 'x' is not a number: write a whole number, a decimal "
            "such as 0.5 or a fraction such as 1/2"
        ]
    }
    assert nothing_stored()


@pytest.mark.django_db
def test_the_preview_count_does_not_stop_a_save(organiser_client: Client) -> None:
    data = plan_data(SWISS_TOP_8, KNOCKOUT, expected_entries="1")
    forms = errors_of(preview(organiser_client, data))
    assert list(forms.settings.errors) == ["expected_entries"]
    assert save(organiser_client, data).status_code == 302
    assert Tournament.objects.count() == 1


@pytest.mark.django_db
def test_a_deleted_row_is_not_a_stage(organiser_client: Client) -> None:
    data = plan_data(SWISS_TOP_8, {**SWISS, "DELETE": "on"}, KNOCKOUT)
    response = save(organiser_client, data)
    assert response.status_code == 302
    assert list(Stage.objects.values_list("format", flat=True)) == ["swiss", "knockout"]


# --- the preview ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_preview_shows_tables_and_payouts_and_stores_nothing(
    organiser_client: Client,
) -> None:
    data = plan_data(SWISS_TOP_8, KNOCKOUT, expected_entries="30", guarantee="15000")
    response = preview(organiser_client, data)
    assert response.status_code == 200
    shown: PlanPreview = response.context["preview"]
    swiss, knockout = shown.stages
    # 30 players at 4-seat tables: 6 tables of 4 and 2 of 3, every round; the top 8 go on
    assert (swiss.entries, swiss.advancing) == (30, 8)
    assert [(line.tables, line.sizes, line.byes) for line in swiss.lines] == [
        (8, "6 of 4 seats, 2 of 3 seats", 0)
    ]
    assert swiss.rounds == "2 rounds"
    # 8 players: two tables of 4, their top 2 make the final table
    assert knockout.entries == 8
    assert [(line.label, line.tables) for line in knockout.lines] == [("Round 1", 2), ("Final", 1)]
    # 30 x 500 = 15000, less 10% rake = 13500, raised to the 15000 guarantee
    pool = shown.payouts
    assert pool is not None
    assert (pool.gross, pool.rake, pool.topup, pool.total) == (
        Decimal("15000.00"),
        Decimal("1500.00"),
        Decimal("1500.00"),
        Decimal("15000.00"),
    )
    assert [(p.place, p.percent, p.amount) for p in pool.places] == [
        (1, Decimal("50.00"), Decimal("7500.00")),
        (2, Decimal("30.00"), Decimal("4500.00")),
        (3, Decimal("20.00"), Decimal("3000.00")),
    ]
    page = response.content.decode()
    assert 'id="preview"' in page and 'id="payouts"' in page
    assert "6 of 4 seats, 2 of 3 seats" in page
    # the money to the currency's minor unit, grouped: never "15000.000"
    assert [(line.label, line.amount) for line in shown.pool_lines] == [
        ("Fees of 30 entries × 500.00\u00a0RUB", "15,000.00\u00a0RUB"),
        ("Rake", "−1,500.00\u00a0RUB"),
        ("Raised to the guarantee", "+1,500.00\u00a0RUB"),
        ("Pool", "15,000.00\u00a0RUB"),
    ]
    assert [line.amount for line in shown.payout_lines] == [
        "7,500.00\u00a0RUB",
        "4,500.00\u00a0RUB",
        "3,000.00\u00a0RUB",
    ]
    assert "15,000.00\u00a0RUB" in page and "7,500.00\u00a0RUB" in page
    assert nothing_stored()


@pytest.mark.django_db
def test_the_preview_of_round_robin_teams_and_the_default_payouts(
    organiser_client: Client,
) -> None:
    # pairs at 2x2 tables: two groups of 9 teams, a bye a round in each, the top 2 of each go on
    data = plan_data(
        {"format": "round_robin", "table_size": "4", "groups": "2"}
        | {"advance_rule": "per_table", "advance_count": "2"},
        {"format": "swiss", "table_size": "4", "rounds": "3"},
        team_size="2",
        expected_entries="18",
        payout_structure="",
        rake_percent="0",
        entry_fee="100",
    )
    response = preview(organiser_client, data)
    shown: PlanPreview = response.context["preview"]
    groups, final = shown.stages
    assert [(line.tables, line.sizes, line.byes) for line in groups.lines] == [
        (8, "8 of 2 teams", 2)
    ]
    assert groups.rounds == "9 rounds"
    assert (groups.advancing, final.entries) == (4, 4)
    # the default structure pays ceil(15% of 18) = 3 places, weighted 1, 1/2, 1/3
    pool = shown.payouts
    assert pool is not None and pool.total == Decimal("1800.00")
    assert [p.amount for p in pool.places] == [
        Decimal("981.83"),
        Decimal("490.90"),
        Decimal("327.27"),
    ]
    assert nothing_stored()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "stage",
    [
        {"format": "round_robin", "table_size": "2", "groups": "1"},
        {"format": "round_robin", "table_size": "6", "groups": "1"},
        {"format": "knockout", "table_size": "4", "advance_per_table": "2"},
        {"format": "swiss", "table_size": "3", "rounds": "9"},
    ],
)
def test_the_preview_of_the_largest_field_is_quick(
    organiser_client: Client, stage: dict[str, str]
) -> None:
    data = plan_data(stage, max_entries="", expected_entries="100000")
    started = time.monotonic()
    shown: PlanPreview = preview(organiser_client, data).context["preview"]
    assert time.monotonic() - started < 10
    assert shown.stages[0].entries == 100_000
    assert shown.payouts is not None and len(shown.payouts.places) == 3


@pytest.mark.django_db
def test_the_preview_checks_like_a_save(organiser_client: Client) -> None:
    # top 8 of 6 expected players cannot advance: refused for the preview's count
    data = plan_data(SWISS_TOP_8, KNOCKOUT, expected_entries="6")
    forms = errors_of(preview(organiser_client, data))
    assert forms.stages.filled_forms()[0].errors == {
        "advance_count": ["8 are to advance but the stage has only 6 entries"]
    }
    # a fee of a fraction of a kopek cannot be paid (nor saved)
    data = plan_data(SWISS_TOP_8, KNOCKOUT, entry_fee="10.005", expected_entries="16")
    forms = errors_of(preview(organiser_client, data))
    assert forms.settings.errors["entry_fee"] == [
        "10.005 RUB cannot be paid: the smallest amount in RUB is 0.01"
    ]
    assert errors_of(save(organiser_client, data)).settings.errors["entry_fee"]
    assert nothing_stored()


@pytest.mark.django_db
def test_without_a_count_the_preview_shows_the_fewest_entries_and_usual_fields(
    organiser_client: Client,
) -> None:
    # given no expected entries and no max entries: a swiss stage sending its top 8 on
    data = plan_data(SWISS_TOP_8, KNOCKOUT, max_entries="")
    # when previewed
    response = preview(organiser_client, data)
    # then the plan is shown at 8 entries (the fewest the top 8 need) and a few usual sizes
    assert response.status_code == 200 and not response.context["forms"].has_errors
    shown: list[PlanPreview] = response.context["previews"]
    assert [p.entries for p in shown] == [8, 16, 32, 64]
    assert shown[0].note == "The fewest entries this plan can run with."
    assert [s.entries for s in shown[0].stages] == [8, 8]
    page = response.content.decode()
    assert 'id="preview"' in page and 'id="preview-64"' in page
    # with a max entries, the usual sizes stay within it
    data = plan_data(SWISS_TOP_8, KNOCKOUT, max_entries="20")
    shown = preview(organiser_client, data).context["previews"]
    assert [p.entries for p in shown] == [20]  # the max entries stand for the expected
    assert nothing_stored()


# --- who may -----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_referee_is_refused(client: Client, console_referee: User) -> None:
    client.force_login(console_referee)
    assert client.get(ADD_URL).status_code == 403
    response = save(client, plan_data(SWISS_TOP_8, KNOCKOUT))
    assert response.status_code == 403
    assert nothing_stored()


@pytest.mark.django_db
def test_outsiders_are_sent_to_the_login(client: Client, outsider: User) -> None:
    for who in (None, outsider):
        if who is not None:
            client.force_login(who)
        response = save(client, plan_data(SWISS_TOP_8, KNOCKOUT))
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("admin:login"))
    assert nothing_stored()


@pytest.mark.django_db
def test_a_superuser_may_use_any_league(client: Client, own_league: League) -> None:
    boss = UserFactory.create(username="boss", is_staff=True, is_superuser=True)
    client.force_login(boss)
    data = plan_data(SWISS_TOP_8, KNOCKOUT, league=str(own_league.pk))
    assert save(client, data).status_code == 302
    assert Tournament.objects.get().league == own_league


@pytest.mark.django_db
def test_an_organiser_may_not_use_another_organisers_league(
    organiser_client: Client, own_league: League
) -> None:
    other = League.objects.create(name="Чужая", slug="other", season="2025")
    data = plan_data(SWISS_TOP_8, KNOCKOUT, league=str(other.pk))
    forms = errors_of(save(organiser_client, data))
    assert list(forms.settings.errors) == ["league"]
    assert nothing_stored()


# --- garbage -----------------------------------------------------------------------------------


def _garbage(rng: random.Random) -> str:
    choices = [
        "",
        " ",
        "-1",
        "0",
        "1e999999",
        "NaN",
        "Infinity",
        "9" * 400,
        "0.0000001",
        "\x00",
        "<script>",
        "☃" * 200,
        "__prefix__",
        "on",
        "best_of",
        "swiss",
        "1/0",
    ]
    if rng.random() < 0.5:
        return rng.choice(choices)
    alphabet = "0123456789-.,;% abcxyzАБВ\t\n\x00"
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))


@pytest.mark.django_db
def test_garbage_never_breaks_the_page(organiser_client: Client) -> None:
    rng = random.Random(20251)
    good = plan_data(SWISS_TOP_8, KNOCKOUT, expected_entries="40")
    for attempt in range(24):
        data = dict(good)
        # every field garbled, or a few of them
        names = list(data) if attempt % 3 == 0 else rng.sample(list(data), 3)
        for name in names:
            data[name] = _garbage(rng)
        button = rng.choice(["_save", "_preview"])
        response = organiser_client.post(ADD_URL, {**data, button: "1"})
        assert response.status_code in (200, 302), (attempt, response.status_code)
    for extra in ({"stages-TOTAL_FORMS": "100000"}, {"stages-TOTAL_FORMS": "-3"}, {}):
        data = {**good, **extra}
        data.pop("name")
        response = save(organiser_client, data)
        assert response.status_code == 200
