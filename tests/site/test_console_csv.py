"""Importing players from a CSV file in the console: the parser (encodings, delimiters, headers,
every error), then the two steps as an organiser (a preview that stores nothing, a confirmation
that registers every valid line or none), the ratings it gives new players, and who is
refused."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.contrib.messages import get_messages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from tests.builders import console_event, make_tournament
from tests.factories import PlayerFactory
from tournaments import services
from tournaments.console.csv_import import MAX_BYTES, MAX_ROWS, Row, parse_players_csv
from tournaments.models import AuditEvent, Entry, Player, StageEntry, Tournament
from tournaments.services.people import rating_mu_from_seed

DEFAULT_MU, DEFAULT_SIGMA = 25.0, 25.0 / 3
ENGLISH = {"Accept-Language": "en"}


# --- the parser ---------------------------------------------------------------------------------


def test_utf8_with_a_bom_commas_and_english_headers_in_any_case() -> None:
    data = "\ufeffName,CLUB,Rating,Notes\nIvanov,Spartak,1650,x\nПетров,,,\n".encode()
    parsed = parse_players_csv(data)
    assert parsed.errors == []
    assert parsed.rows == [Row(2, "Ivanov", "Spartak", 1650.0), Row(3, "Петров", "", None)]


def test_windows_1251_semicolons_and_russian_headers() -> None:
    data = "Рейтинг;Клуб;Имя\r\n1500,5;Спартак;Иванов, Пётр\r\n;;Сидоров\r\n".encode("cp1251")
    parsed = parse_players_csv(data)
    assert parsed.errors == []
    assert parsed.rows == [
        Row(2, "Иванов, Пётр", "Спартак", 1500.5),
        Row(3, "Сидоров", "", None),
    ]


def test_utf8_without_a_bom_a_player_column_blank_lines_skipped_with_true_line_numbers() -> None:
    parsed = parse_players_csv("\nИгрок\n\nАнна\n  \nБорис\n".encode())
    assert [(r.line, r.name) for r in parsed.rows] == [(4, "Анна"), (6, "Борис")]
    assert all(r.valid for r in parsed.rows)


def test_every_line_error_is_on_its_line_and_the_others_stand() -> None:
    data = "\n".join(
        [
            "name;club;rating",
            "Анна;А;1500",  # 2: fine
            ";А;1500",  # 3: no name
            f"{'я' * 81};А;",  # 4: too long
            "Борис;А;много",  # 5: not a number
            "Вера;А;3001",  # 6: out of range
            "Глеб;А;-1",  # 7: out of range
            "Анна;А;1700",  # 8: the same as line 2
            "Анна;Б;1700",  # 9: another club: another player
            f"Дина;{'к' * 81};",  # 10: club too long
            "Ева;А;nan",  # 11: not a finite number
        ]
    ).encode()
    parsed = parse_players_csv(data)
    assert parsed.errors == []
    errors = {row.line: row.errors for row in parsed.rows}
    assert [line for line, e in errors.items() if not e] == [2, 9]
    assert all(len(errors[line]) == 1 for line in (3, 4, 5, 6, 7, 8, 10, 11))
    assert "2" in errors[8][0]  # names the first line
    assert [r.line for r in parsed.valid_rows] == [2, 9]


def test_an_unclosed_quote_is_refused_naming_the_lines_it_swallowed() -> None:
    # given 40 players whose line 21 opens a quote in the club it never closes
    lines = [f"Игрок {n};Клуб;1500" for n in range(2, 42)]
    lines[19] = 'Игрок 21;"Спартак;1500'
    parsed = parse_players_csv(("name;club;rating\n" + "\n".join(lines) + "\n").encode())
    # then lines 2-20 stand, and line 21 is refused naming lines 22-41, read into its cell
    assert parsed.errors == []
    assert [r.line for r in parsed.valid_rows] == list(range(2, 21))
    broken = parsed.rows[-1]
    assert broken.line == 21 and len(broken.errors) == 1
    assert "22–41" in broken.errors[0] and "quote" in broken.errors[0]


def test_a_quote_closed_on_a_later_line_is_refused_and_the_lines_after_it_stand() -> None:
    data = 'name;club\nАнна;"Спар\nтак"\nБорис;А\n'.encode()
    parsed = parse_players_csv(data)
    assert [(r.line, r.valid) for r in parsed.rows] == [(2, False), (4, True)]
    assert "3–3" in parsed.rows[0].errors[0]


def test_more_filled_cells_than_columns_is_a_line_error_and_trailing_separators_pass() -> None:
    data = "name;club\nИванов; Пётр;Спартак\nАнна;А;;\n".encode()
    parsed = parse_players_csv(data)
    errors = {row.line: row.errors for row in parsed.rows}
    assert len(errors[2]) == 1 and "3" in errors[2][0] and "2 columns" in errors[2][0]
    assert errors[3] == ()


def test_too_many_lines_too_big_no_name_column_or_nothing_refuse_the_whole_file() -> None:
    many = ("name\n" + "".join(f"p{i}\n" for i in range(MAX_ROWS + 1))).encode()
    assert parse_players_csv(many).rows == []
    assert parse_players_csv(many).errors
    assert not parse_players_csv(("name\n" + "p\n" * MAX_ROWS).encode()).errors
    big = b"name\n" + b"x" * MAX_BYTES
    for data in (big, b"club,rating\nA,1\n", b"", b"\n\n", b"name\n\x98\xff\xfe"):
        parsed = parse_players_csv(data)
        assert parsed.errors and parsed.rows == [] and parsed.valid_rows == []


def test_the_rating_rule() -> None:
    assert rating_mu_from_seed(1500) == DEFAULT_MU
    assert (rating_mu_from_seed(1900), rating_mu_from_seed(700)) == (35.0, 5.0)
    assert (rating_mu_from_seed(0), rating_mu_from_seed(3000)) == (-12.5, 62.5)


# --- the pages ----------------------------------------------------------------------------------


def import_url(tournament: Tournament) -> str:
    return reverse("admin:tournaments_tournament_import_players", args=[tournament.pk])


def as_user(client: Client, user: User) -> Client:
    client.force_login(user)
    return client


def upload(client: Client, tournament: Tournament, text: str, **kw: Any) -> Any:
    data = {"file": SimpleUploadedFile("players.csv", text.encode(kw.pop("encoding", "utf-8")))}
    return client.post(import_url(tournament), {**data, "paid": "on"}, headers=ENGLISH, **kw)


def confirm(client: Client, tournament: Tournament, signed: str, query: str = "") -> Any:
    return client.post(import_url(tournament) + query, {"rows": signed}, headers=ENGLISH)


def sixteen() -> str:
    # Ratings out of order in the file; line i + 2 has rating 1000 + 50 * ((i * 7) % 16).
    lines = [f"Игрок {i:02};Клуб;{1000 + 50 * ((i * 7) % 16)}" for i in range(16)]
    return "Имя;Клуб;Рейтинг\n" + "\n".join(lines) + "\n"


@pytest.fixture
def open_event(organiser: User) -> Tournament:
    return make_tournament([], created_by=organiser)


@pytest.mark.django_db
def test_an_organiser_imports_sixteen_players_and_the_seeding_follows_their_ratings(
    client: Client, organiser: User, open_event: Tournament
) -> None:
    as_user(client, organiser)
    # given: the page, and the buttons leading to it
    page = client.get(reverse("admin:tournaments_tournament_change", args=[open_event.pk]))
    assert import_url(open_event) in page.content.decode()
    entries = client.get(reverse("admin:tournaments_entry_changelist"))
    assert import_url(open_event) in entries.content.decode()
    assert client.get(import_url(open_event)).status_code == 200

    # when: the file is uploaded, in Russian Excel's encoding
    preview = upload(client, open_event, sixteen(), encoding="cp1251")

    # then: a preview of sixteen new players, and nothing stored
    assert preview.status_code == 200
    planned = preview.context["planned"]
    assert [p.row.line for p in planned] == list(range(2, 18))
    assert {p.outcome for p in planned} == {"New player"}
    assert "Игрок 00" in preview.content.decode()
    assert not Player.objects.exists() and not Entry.objects.exists()

    # when: confirmed
    done = confirm(client, open_event, preview.context["signed_rows"])

    # then: sixteen players registered, audited, rated
    assert done.status_code == 302
    assert done["Location"].endswith(f"?tournament__id__exact={open_event.pk}")
    assert "16 players registered" in [str(m) for m in get_messages(done.wsgi_request)]
    entries_made = Entry.objects.filter(tournament=open_event)
    assert entries_made.count() == 16 and all(e.paid for e in entries_made)
    audit = AuditEvent.objects.filter(
        tournament=open_event, action=AuditEvent.Action.ENTRY_REGISTER, actor=organiser
    )
    assert audit.count() == 16 and {a.reason for a in audit} == {"CSV import"}
    assert {a.target_id for a in audit} == {e.pk for e in entries_made}
    first = Player.objects.get(display_name="Игрок 01")  # rating 1000 + 50 * 7 = 1350
    assert (first.club, first.rating_mu, first.rating_sigma) == ("Клуб", 21.25, DEFAULT_SIGMA)

    # and the seeding puts the highest rating first
    services.tournament_start(tournament=open_event)
    seeded = StageEntry.objects.filter(entry__tournament=open_event).order_by("seed")
    mus = [s.entry.player.rating_mu for s in seeded if s.entry.player]
    assert len(mus) == 16 and mus == sorted(mus, reverse=True)


@pytest.mark.django_db
def test_the_preview_counts_every_player_line_and_shows_the_swallowed_lines(
    client: Client, organiser: User, open_event: Tournament
) -> None:
    as_user(client, organiser)
    lines = [f"Игрок {n};Клуб;1500" for n in range(2, 12)]
    lines[4] = 'Игрок 6;"Клуб;1500'  # swallows lines 7-11
    preview = upload(client, open_event, "name;club;rating\n" + "\n".join(lines) + "\n")
    assert preview.status_code == 200
    html = preview.content.decode()
    counts = html[html.index('id="import-counts"') :].split("</p>")[0]
    assert "read from the file: 5; to register: 4; with errors: 1." in counts
    assert "7–11" in html


@pytest.mark.django_db
def test_existing_players_are_matched_keep_their_rating_and_registered_ones_are_skipped(
    client: Client, organiser: User, open_event: Tournament
) -> None:
    known = PlayerFactory.create(display_name="Анна", club="Спартак", rating_mu=30.0)
    inside = PlayerFactory.create(display_name="Борис", club="")
    services.entry_register(tournament=open_event, player=inside)
    other_club = PlayerFactory.create(display_name="Вера", club="Динамо")
    text = "name,club,rating\nАнна,Спартак,2900\nБорис,,\nВера,,\n,Спартак,1500\n"
    preview = upload(as_user(client, organiser), open_event, text)
    outcomes = [p.outcome for p in preview.context["planned"]]
    assert outcomes == [
        "Existing player (its rating is kept, the file's is not used)",
        "Skipped: already registered",
        "New player",
        "Skipped: an error",
    ]
    assert preview.context["to_register"] == 2
    done = confirm(client, open_event, preview.context["signed_rows"])
    assert done.status_code == 302
    known.refresh_from_db()
    assert known.rating_mu == 30.0
    registered = Entry.objects.filter(tournament=open_event).values_list("player_id", flat=True)
    new_vera = Player.objects.get(display_name="Вера", club="")
    assert set(registered) == {known.pk, inside.pk, new_vera.pk}
    assert new_vera.pk != other_club.pk
    assert (new_vera.rating_mu, new_vera.rating_sigma) == (DEFAULT_MU, DEFAULT_SIGMA)


@pytest.mark.django_db
def test_a_full_tournament_refuses_the_whole_file_with_the_line(
    client: Client, organiser: User
) -> None:
    event = make_tournament(
        [],
        stages=[{"format": "swiss", "table_size": 2, "rounds": 1}],
        max_entries=4,
        created_by=organiser,
    )
    text = "name\n" + "".join(f"P{i}\n" for i in range(5))
    preview = upload(as_user(client, organiser), event, text)
    assert preview.context["to_register"] == 5
    refused = confirm(client, event, preview.context["signed_rows"])
    assert refused.status_code == 409
    assert "Line 6" in refused.context["refusal"]
    assert "full" in refused.context["refusal"]
    assert not Player.objects.exists() and not Entry.objects.exists()
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.ENTRY_REGISTER).exists()


@pytest.mark.django_db
def test_changed_or_foreign_signed_rows_are_refused(client: Client, organiser: User) -> None:
    event = make_tournament([], created_by=organiser)
    other = make_tournament([], created_by=organiser, name="Другой")
    preview = upload(as_user(client, organiser), event, "name\nАнна\n")
    signed = preview.context["signed_rows"]
    for tampered in (signed[:-2] + ("AA" if not signed.endswith("AA") else "BB"), "junk", ""):
        refused = confirm(client, event, tampered)
        assert refused.status_code == 400
        assert "upload the file again" in refused.context["refusal"]
    assert confirm(client, other, signed).status_code == 400  # signed for `event`
    assert not Player.objects.exists() and not Entry.objects.exists()


@pytest.mark.django_db
def test_who_is_refused(
    client: Client, organiser: User, event_referee: User, request: pytest.FixtureRequest
) -> None:
    event = make_tournament([], created_by=organiser)
    event.referees.set([event_referee])
    url = import_url(event)
    for name, status in (
        ("event_referee", 403),
        ("other_organiser", 404),
        ("other_referee", 404),
        ("staff_without_group", 404),
        ("outsider", 302),  # not staff: the admin's login
    ):
        user = request.getfixturevalue(name)
        client.force_login(user)
        assert client.get(url).status_code == status, user
        assert upload(client, event, "name\nАнна\n").status_code == status, user
    client.logout()
    assert client.get(url).status_code == 302
    assert not Player.objects.exists()
    # the referee sees the event's page, without the button
    page = as_user(client, event_referee).get(
        reverse("admin:tournaments_tournament_change", args=[event.pk])
    )
    assert page.status_code == 200 and url not in page.content.decode()
    assert as_user(client, request.getfixturevalue("superuser")).get(url).status_code == 200


@pytest.mark.django_db
def test_a_tournament_not_open_for_registration_is_refused(
    client: Client, organiser: User, other_organiser: User
) -> None:
    draft = services.tournament_create(
        name="Черновик",
        stages=[{"format": "swiss", "table_size": 2, "rounds": 1}],
        created_by=organiser,
    )
    closed = make_tournament(
        PlayerFactory.create_batch(2),
        stages=[{"format": "swiss", "table_size": 2, "rounds": 1}],
        created_by=organiser,
    )
    services.tournament_close_registration(tournament=closed)
    running = console_event(owner=organiser, referees=[], name="Идёт").tournament
    as_user(client, organiser)
    for event in (draft, closed, running):
        page = client.get(import_url(event), headers=ENGLISH)
        assert page.status_code == 409
        assert "Registration for this tournament is not open" in page.context["refusal"]
        assert upload(client, event, "name\nАнна\n").status_code == 409
        change = client.get(reverse("admin:tournaments_tournament_change", args=[event.pk]))
        assert import_url(event) not in change.content.decode()
    # signed while open, confirmed after it closed: refused too
    event = make_tournament(
        PlayerFactory.create_batch(2),
        stages=[{"format": "swiss", "table_size": 2, "rounds": 1}],
        created_by=organiser,
        name="Скоро закроется",
    )
    signed = upload(client, event, "name\nАнна\n").context["signed_rows"]
    services.tournament_close_registration(tournament=event)
    assert confirm(client, event, signed).status_code == 409
    assert not Player.objects.filter(display_name="Анна").exists()


@pytest.mark.django_db
def test_an_import_opened_from_the_dashboard_goes_back_to_it(
    client: Client, organiser: User, open_event: Tournament
) -> None:
    as_user(client, organiser)
    preview = upload(client, open_event, sixteen())
    done = confirm(client, open_event, preview.context["signed_rows"], "?from=dashboard")
    assert done.status_code == 302
    assert done["Location"] == reverse(
        "admin:tournaments_tournament_dashboard", args=[open_event.pk]
    )
    assert Entry.objects.filter(tournament=open_event).count() == 16
