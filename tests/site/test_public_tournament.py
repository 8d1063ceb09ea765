"""The public pages of an event (``tournaments.site.events``): the tournament page and the embeds
of its standings and bracket, what they show, who may see them, and how they stay light.

The events are played out as the API's tests play them (``tests.api.test_events``: every table's
result recorded through the services, in the jobs' order), so the pages and the API read the
same data.
"""

from __future__ import annotations

import re
from html import escape, unescape

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.api.test_events import finished_event, record, swiss_then_knockout
from tests.builders import TWO_SEATS, make_tournament
from tests.factories import BotPlayerFactory, PlayerFactory
from tournaments import services
from tournaments.models import (
    Entry,
    Payout,
    Player,
    RankRecord,
    Round,
    Stage,
    Table,
    Tournament,
)
from tournaments.selectors import standings
from tournaments.site.events import pages, words
from tournaments.wording import TIE_BREAK_LABELS, points_text, rank_title

pytestmark = pytest.mark.django_db

NBSP = "\u00a0"  # between an amount and its currency


def page(client: Client, url: str, language: str = "en") -> str:
    response = client.get(url, headers={"Accept-Language": language})
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


def running_event(players: int) -> Tournament:
    """A swiss-then-knockout event in its first round: paired, half its tables finished."""
    tournament = make_tournament(
        BotPlayerFactory.create_batch(players), stages=swiss_then_knockout(players)
    )
    services.tournament_start(tournament=tournament)
    first = Round.objects.get(stage__tournament=tournament, stage__order=1, number=1)
    services.round_pair(round_id=first.pk)
    tables = list(Table.objects.filter(round=first, is_bye=False).order_by("number"))
    for table in tables[: len(tables) // 2]:
        record(table, pogony=table.number == 1)
    tournament.refresh_from_db()
    return tournament


@pytest.fixture
def event() -> Tournament:
    return finished_event(16, name="Кубок шестнадцати", seed="a-draw-seed-kept-secret")


# --- a finished event ---------------------------------------------------------------------------


def test_a_finished_event_shows_its_final_places_payouts_ranks_and_pool(
    client: Client, event: Tournament
) -> None:
    html = page(client, f"/tournaments/{event.slug}/")
    final = html[html.index('id="final"') : html.index('id="stage-1"')]
    places = final[final.index('id="final-places"') :]
    placed = Entry.objects.filter(tournament=event).select_related("player")
    order = [e.name for e in placed.order_by("final_place", "pk")]
    names = re.findall(r'<th scope="row"><a href="/players/\d+/">([^<]+)</a>', places)
    assert names == order
    # every payout, in the tournament's currency, beside its player
    for payout in Payout.objects.filter(tournament=event).select_related("entry__player"):
        row = places[places.index(f">{payout.entry.name}</a>") :].split("</tr>")[0]
        assert f"{payout.amount:,.2f}{NBSP}RUB" in row
    # every rank earned, beside its player
    records = list(RankRecord.objects.filter(tournament=event).select_related("player"))
    assert records
    for rank in records:
        row = places[places.index(f">{rank.player.display_name}</a>") :].split("</tr>")[0]
        assert rank_title(rank.rank) in row  # in the reader's language (English here)
    # the podium and the pool
    assert 'class="podium"' in final and order[0] in final.split("</ol>")[0]
    for amount in ("1,440.00", "1,600.00", "160.00"):  # the pool, the fees paid, the rake
        assert f"{amount}{NBSP}RUB" in final


def test_the_podium_shows_every_entry_of_a_shared_place(client: Client, event: Tournament) -> None:
    # given two entries sharing third place (a knockout's two losing semi-finalists)
    fourth = Entry.objects.get(tournament=event, final_place=4)
    Entry.objects.filter(pk=fourth.pk).update(final_place=3)
    html = page(client, f"/tournaments/{event.slug}/")
    podium = html[html.index('class="podium"') :].split("</ol>")[0]
    # then the podium holds all four, the two thirds alike
    placed = Entry.objects.filter(tournament=event, final_place__lte=3)
    assert placed.count() == 4
    for entry in placed:
        assert f">{entry.name}</a>" in podium
    assert podium.count('class="podium-3"') == 2


def test_every_stage_shows_its_plan_standings_with_each_tie_break_and_its_rounds(
    client: Client, event: Tournament
) -> None:
    html = page(client, f"/tournaments/{event.slug}/")
    swiss, knockout = event.stages.order_by("order")
    part = html[html.index('id="stage-1"') : html.index('id="stage-2"')]
    assert "4 players per table · 2 rounds · one game · the top 8 go on" in part
    header = part[part.index("<thead>") : part.index("</thead>")]
    for criterion in standings.stage_tie_breaks(swiss):
        if criterion != "points":
            assert f">{TIE_BREAK_LABELS[criterion]}</th>" in header
    assert "Points by place, 4 at the table" in part and "3 · 2 · 1 · 0" in part
    rows = standings.stage_standings(swiss)
    assert part.count('<tr class="qualifies">') == 8
    first_row = part[part.index("<tbody>") :].split("</tr>")[0]
    assert rows[0].name in first_row
    # the rounds: collapsed on a finished event, each with its pairing explained, no seed
    assert part.count('<details class="round') == 2 and " open>" not in part
    assert "How the round was paired" in part and "Swiss" in part
    assert "a-draw-seed-kept-secret" not in html and "Draw seed" not in html
    assert f'href="?round={swiss.rounds.get(number=1).pk}#round-' in part
    # the knockout stage: its bracket instead of standings
    assert knockout.format == Stage.Format.KNOCKOUT
    tail = html[html.index('id="stage-2"') :]
    assert tail.count('<g class="node ') == Table.objects.filter(round__stage=knockout).count()
    assert 'class="edge adv"' in tail and '<g class="row win">' in tail


def test_a_round_opens_with_its_tables_seats_results_and_live_links(
    client: Client, event: Tournament
) -> None:
    round_ = Round.objects.get(stage__tournament=event, stage__order=1, number=2)
    other = Round.objects.get(stage__tournament=event, stage__order=2, number=1)
    html = page(client, f"/tournaments/{event.slug}/?round={round_.pk}&round={other.pk}")
    opened = html[html.index(f'id="round-{round_.pk}"') :].split("</details>")[0]
    assert " open>" in opened.split("\n")[0]
    tables = list(Table.objects.filter(round=round_).order_by("number"))
    assert opened.count('<article class="tcard') == len(tables)
    for table in tables:
        assert f'href="/tables/{table.pk}/"' in opened
        for seat in table.seats.select_related("player"):
            assert f'<a href="/players/{seat.player_id}/">{seat.player.display_name}</a>' in opened
    assert opened.count('<span class="tag fool">') == len(tables)
    knockout = html[html.index(f'id="round-{other.pk}"') :].split("</details>")[0]
    assert '<span class="tag adv">goes on</span>' in knockout
    # nonsense asks for nothing, and breaks nothing
    for query in ("round=abc", "round=99999999", "round=-1", "stage1_page=x", "final_page=999"):
        assert 'id="stage-1"' in page(client, f"/tournaments/{event.slug}/?{query}")


# --- a running event ----------------------------------------------------------------------------


def test_a_running_event_opens_its_current_round_with_links_to_the_live_tables(
    client: Client,
) -> None:
    event = running_event(8)
    html = page(client, f"/tournaments/{event.slug}/")
    assert 'data-feed="/ws/tournaments/' in html and f'data-version="{event.version}"' in html
    round_ = Round.objects.get(stage__tournament=event, stage__order=1, number=1)
    opened = html[html.index(f'id="round-{round_.pk}"') :].split("</details>")[0]
    assert " open>" in opened.split("\n")[0]
    playing = Table.objects.get(round=round_, status=Table.Status.PLAYING)
    card = opened[opened.index(f'id="table-{playing.pk}"') :].split("</article>")[0]
    assert f'<a href="/tables/{playing.pk}/">Watch live' in card
    assert "playing" in card and "1 of 2 tables finished" in opened
    assert 'class="stage current"' not in html  # the class list is "part stage current"
    assert 'class="part stage current"' in html
    # the entry panel shows only to a reader with an entry, or while registration is open
    assert 'class="entry-panel' not in html
    # no final places yet; the standings of the first stage already count the finished table
    assert 'id="final"' not in html
    assert html.index('id="stage-1"') < html.index('id="rules"')


def test_an_event_open_for_registration_shows_its_rules_money_and_plan_first(
    client: Client,
) -> None:
    event = make_tournament(
        BotPlayerFactory.create_batch(3),
        rules={"variant": "transfer", "deck_size": 24},
        payout_structure=["60", "40"],
    )
    html = page(client, f"/tournaments/{event.slug}/")
    assert html.index('id="rules"') < html.index('id="stage-1"')
    rules = html[html.index('id="rules"') :]
    assert "Transfer" in rules and "24 cards (9 to ace)" in rules
    assert "Transfer in the first bout" in rules
    assert "1. 60 %, 2. 40 %" in rules and f"100.00{NBSP}RUB" in rules
    assert "No standings yet: the stage has not begun." in html
    assert "The bracket is drawn when the stage begins." in html


def test_the_page_is_russian_by_default_and_answers_head(client: Client, event: Tournament) -> None:
    html = page(client, f"/tournaments/{event.slug}/", language="")
    assert '<html lang="ru">' in html and "Итоговые места" in html
    assert client.head(f"/tournaments/{event.slug}/").status_code == 200


def test_long_standings_come_in_pages(client: Client) -> None:
    event = make_tournament(
        BotPlayerFactory.create_batch(60),
        stages=[{"format": "swiss", "table_size": 4, "rounds": 1}],
    )
    services.tournament_start(tournament=event)
    first = Round.objects.get(stage__tournament=event)
    services.round_pair(round_id=first.pk)
    url = f"/tournaments/{event.slug}/"
    html = page(client, url)
    standings = html[html.index('id="standings-1"') :].split("</table>")[0]
    assert standings.count("<tr") == 51  # the head and 50 lines
    assert "1–50 of 60" in html and 'href="?stage1_page=2#standings-1"' in html
    second = page(client, url + "?stage1_page=2")
    standings = second[second.index('id="standings-1"') :].split("</table>")[0]
    assert standings.count("<tr") == 11 and "51–60 of 60" in second
    assert 'aria-current="page">2</a>' in second


def big_round(players: int = 52) -> tuple[Tournament, Round, list[Table]]:
    """A two-seat swiss of ``players`` human players in its first round, paired: more tables
    than a page shows (``pages.TABLES_PAGE_SIZE``)."""
    event = make_tournament(PlayerFactory.create_batch(players), stages=TWO_SEATS)
    services.tournament_start(tournament=event)
    first = Round.objects.get(stage__tournament=event)
    services.round_pair(round_id=first.pk)
    return event, first, list(Table.objects.filter(round=first).order_by("number"))


def cards(html: str) -> list[int]:
    """The ids of the table cards of a page, in order."""
    return [int(i) for i in re.findall(r'<article class="tcard[^"]*" id="table-(\d+)"', html)]


def test_a_big_rounds_tables_come_in_pages_with_links_that_need_no_script(
    client: Client,
) -> None:
    # given a running round of 26 tables
    event, round_, tables = big_round()
    assert len(tables) == 26 > pages.TABLES_PAGE_SIZE
    url = f"/tournaments/{event.slug}/"
    # when the page opens: the first 24, said so, and a link to the next ones
    html = page(client, url)
    assert cards(html) == [t.pk for t in tables[:24]]
    assert "Tables 1–24 of 26" in html
    second_link = f'href="?round{round_.pk}_page=2#round-{round_.pk}"'
    assert second_link in html and 'rel="next"' in html
    # then the link leads to the last two
    second = page(client, url + f"?round{round_.pk}_page=2")
    assert cards(second) == [t.pk for t in tables[24:]]
    assert "Tables 25–26 of 26" in second and 'aria-current="page">2</a>' in second
    # and the page says it all in Russian, its default language
    russian = page(client, url, language="ru")
    assert "Столы 1–24 из 26" in russian and "Найти стол игрока" in russian


def test_a_player_finds_their_table_by_name_without_a_script(client: Client) -> None:
    # given a big round, and a player seated on its second page of tables
    event, round_, tables = big_round()
    last = tables[-1].seats.select_related("player").order_by("position").first()
    assert last is not None
    Player.objects.filter(pk=last.player_id).update(display_name="Anna Smirnova")
    url = f"/tournaments/{event.slug}/"
    html = page(client, url + "?stage1_page=1")
    # the round offers a search form that keeps the page's other parameters
    form = html[html.index('<form class="find"') :].split("</form>")[0]
    assert f'action="#round-{round_.pk}"' in form and 'name="find"' in form
    assert '<input type="hidden" name="stage1_page" value="1">' in form
    # when they look for their name, in another case
    found = page(client, url + "?find=smirnova")
    # then their table is the one shown, said so, with a way back to every table
    assert cards(found) == [tables[-1].pk]
    assert "1 table with a player named “smirnova”" in found
    assert f'href="?#round-{round_.pk}">Every table</a>' in found
    assert 'value="smirnova"' in found
    # and a name nobody has says so
    nobody = page(client, url + "?find=Nobody+Here")
    assert cards(nobody) == [] and "No table of this round has a player of that name." in nobody


def test_a_logged_in_player_sees_their_own_table_first(client: Client) -> None:
    # given a big round and its last table's player logged in
    event, _, tables = big_round()
    seat = tables[-1].seats.select_related("player__user").order_by("position").first()
    assert seat is not None and seat.player.user is not None
    client.force_login(seat.player.user)
    # when they open the page (their table is not on its first page)
    html = page(client, f"/tournaments/{event.slug}/")
    # then it comes first, above the page of tables, and appears once
    mine = html[html.index('class="mine"') :]
    assert "Your table" in mine[:200]
    assert cards(mine)[0] == tables[-1].pk
    assert cards(html).count(tables[-1].pk) == 1 and len(cards(html)) == 25


# --- who may see it -----------------------------------------------------------------------------


def test_a_private_event_and_its_embeds_exist_only_for_its_people(
    client: Client, outsider: User
) -> None:
    players = PlayerFactory.create_batch(2)
    private = make_tournament(players, stages=TWO_SEATS, is_public=False)
    services.tournament_start(tournament=private)
    slug = private.slug
    urls = [
        f"/tournaments/{slug}/",
        f"/embed/tournaments/{slug}/standings/",
        f"/embed/tournaments/{slug}/standings/?stage=1",
    ]
    for url in urls:
        assert client.get(url).status_code == 404
        client.force_login(outsider)
        assert client.get(url).status_code == 404
        assert players[0].user is not None
        client.force_login(players[0].user)
        assert client.get(url).status_code == 200, url
        client.logout()
    assert client.get("/tournaments/no-such-event/").status_code == 404


def test_a_draft_is_nobodys_business(client: Client) -> None:
    draft = services.tournament_create(name="Черновик", stages=swiss_then_knockout(8))
    assert client.get(f"/tournaments/{draft.slug}/").status_code == 404


# --- the embeds ---------------------------------------------------------------------------------


def test_the_embeds_are_frameable_headerless_and_themed(client: Client, event: Tournament) -> None:
    main = client.get(f"/tournaments/{event.slug}/")
    assert main["X-Frame-Options"] == "DENY"
    standings = client.get(f"/embed/tournaments/{event.slug}/standings/?theme=dark")
    bracket = client.get(f"/embed/tournaments/{event.slug}/bracket/?theme=auto")
    for response in (standings, bracket):
        assert response.status_code == 200
        assert "X-Frame-Options" not in response
        html = response.content.decode()
        assert "site-header" not in html and '<base target="_blank">' in html
        assert 'data-feed="/ws/tournaments/' in html
    assert 'data-theme="dark"' in standings.content.decode()
    assert 'data-theme="auto"' in bracket.content.decode()
    odd = client.get(f"/embed/tournaments/{event.slug}/bracket/?theme=<script>")
    assert 'data-theme="light"' in odd.content.decode()


def test_the_embeds_may_be_framed_by_any_page_a_local_file_included(
    client: Client, event: Tournament
) -> None:
    for kind in ("standings", "bracket"):
        response = client.get(f"/embed/tournaments/{event.slug}/{kind}/")
        # no X-Frame-Options, and no frame-ancestors: "*" would refuse file: and opaque origins
        assert "X-Frame-Options" not in response
        assert "frame-ancestors" not in response["Content-Security-Policy"]
        assert "script-src 'self'" in response["Content-Security-Policy"]
        # and it tells its parent its height
        assert '/static/js/embed.js" defer' in response.content.decode()
    page = client.get(f"/tournaments/{event.slug}/")
    assert "frame-ancestors 'none'" in page["Content-Security-Policy"]


def snippet_codes(html: str) -> dict[str, str]:
    """The code the tournament page offers to copy, by what it embeds."""
    found = re.findall(r'<textarea id="embed-(\w+)-code"[^>]*>([^<]*)</textarea>', html)
    return {kind: unescape(code) for kind, code in found}


def test_the_tournament_page_offers_the_code_that_embeds_its_standings_and_bracket(
    client: Client, event: Tournament
) -> None:
    html = page(client, f"/tournaments/{event.slug}/")
    codes = snippet_codes(html)
    assert set(codes) == {"standings", "bracket"}
    for kind, code in codes.items():
        # an iframe of the embed, by its absolute address (it runs on another site), named by
        # the id the embed posts its height with, and the loader that sizes it
        frame_id = f"durak-{event.slug}-{kind}"
        src = f"http://testserver/embed/tournaments/{event.slug}/{kind}/?theme=light&id={frame_id}"
        assert f'<iframe id="{frame_id}" src="{escape(src)}"' in code
        assert f'title="{event.name}: {kind}"' in code
        assert '<script src="http://testserver/static/js/embed-loader.js" async>' in code
        # the live preview is the snippet itself (the offered code is the textarea's, escaped)
        assert code in html
        assert client.get(src).status_code == 200
    assert "/static/js/embed-snippet.js" in html
    # the standings come a page at a time: the code's reader is told how to show more
    assert "The standings show 50 lines at a time" in html and "<code>&amp;limit=</code>" in html
    # in Russian too
    ru = page(client, f"/tournaments/{event.slug}/", language="ru")
    assert "Встроить на свой сайт" in ru and f"{event.name}: турнирная таблица" in ru


def test_only_the_embeds_an_event_has_are_offered_and_none_for_a_private_one(
    client: Client, outsider: User
) -> None:
    # given a swiss-only event: standings, no bracket
    swiss_only = make_tournament(
        BotPlayerFactory.create_batch(4), stages=[{"format": "swiss", "table_size": 2, "rounds": 1}]
    )
    services.tournament_start(tournament=swiss_only)
    assert set(snippet_codes(page(client, f"/tournaments/{swiss_only.slug}/"))) == {"standings"}
    # given a private event: its embeds are a 404 to anyone else, so none is offered
    players = PlayerFactory.create_batch(2)
    private = make_tournament(players, stages=TWO_SEATS, is_public=False)
    services.tournament_start(tournament=private)
    assert players[0].user is not None
    client.force_login(players[0].user)
    html = page(client, f"/tournaments/{private.slug}/")
    assert snippet_codes(html) == {} and 'id="embed"' not in html


def test_an_embed_shows_the_live_indicator_only_while_its_event_runs(
    client: Client, event: Tournament
) -> None:
    # given a finished event and a running one
    running = running_event(8)
    # then a finished event's embeds say "finished" and carry no live indicator
    for path in ("standings", "bracket"):
        html = page(client, f"/embed/tournaments/{event.slug}/{path}/")
        assert 'id="live"' not in html
    # and a running event's embed has it
    assert 'id="live"' in page(client, f"/embed/tournaments/{running.slug}/standings/")


def test_the_standings_embed_shows_final_places_or_the_stage_asked_for(
    client: Client, event: Tournament
) -> None:
    final = page(client, f"/embed/tournaments/{event.slug}/standings/")
    winner = Entry.objects.get(tournament=event, final_place=1)
    assert 'id="final-places"' in final and winner.name in final.split("</tr>")[1]
    stage = page(client, f"/embed/tournaments/{event.slug}/standings/?stage=1")
    assert 'id="standings-1"' in stage and "Buchholz" in stage
    assert stage.count('<tr class="qualifies">') == 8  # 16 lines: one page
    for query in ("stage=2", "stage=9"):  # a knockout has no standings; no stage 9
        response = client.get(f"/embed/tournaments/{event.slug}/standings/?{query}")
        assert response.status_code == 404
    assert client.get(f"/embed/tournaments/{event.slug}/standings/?stage=x").status_code == 200


def test_the_standings_embed_shows_a_page_of_them_the_total_and_a_link_to_them_all(
    client: Client,
) -> None:
    # given a stage of 60 entries
    event = make_tournament(
        BotPlayerFactory.create_batch(60),
        stages=[{"format": "swiss", "table_size": 4, "rounds": 1}],
    )
    services.tournament_start(tournament=event)
    services.round_pair(round_id=Round.objects.get(stage__tournament=event).pk)
    url = f"/embed/tournaments/{event.slug}/standings/"
    lines = [line.name for line in standings.stage_standings(event.stages.get())]

    def names(html: str) -> list[str]:
        return re.findall(r'<th scope="row"><a href="/players/\d+/">([^<]+)</a>', html)

    # when the embed is asked for without a page: the first 50 of 60, said so
    first = page(client, url)
    assert names(first) == lines[:50] and "1–50 of 60" in first
    # with a link to them all on the tournament page (a new tab, as every link of an embed)
    everything = f'<a href="/tournaments/{event.slug}/#standings-1">All 60 on the tournament page'
    assert everything in first
    # and links to its pages that stay in the frame
    assert '<a href="?page=2#standings-1" rel="next" target="_self">' in first
    # when a page and a size are asked for
    third = page(client, url + "?limit=20&page=3")
    assert names(third) == lines[40:60] and "41–60 of 60" in third
    assert 'href="?limit=20&amp;page=2#standings-1" rel="prev" target="_self"' in third
    # then nonsense falls back, and a size is capped at 200
    assert names(page(client, url + "?limit=x&page=y")) == lines[:50]
    assert names(page(client, url + "?limit=100000")) == lines
    assert names(page(client, url + "?limit=0")) == lines[:1]
    assert "All 60" not in page(client, url + "?limit=200")  # one page: nothing to link


def test_the_bracket_embed_draws_a_knockout_stage(client: Client, event: Tournament) -> None:
    html = page(client, f"/embed/tournaments/{event.slug}/bracket/")
    knockout = event.stages.get(format=Stage.Format.KNOCKOUT)
    assert html.count('<g class="node ') == Table.objects.filter(round__stage=knockout).count()
    assert page(client, f"/embed/tournaments/{event.slug}/bracket/?stage=2") == html
    assert client.get(f"/embed/tournaments/{event.slug}/bracket/?stage=1").status_code == 404
    swiss_only = make_tournament(
        BotPlayerFactory.create_batch(4), stages=[{"format": "swiss", "table_size": 2, "rounds": 1}]
    )
    assert client.get(f"/embed/tournaments/{swiss_only.slug}/bracket/").status_code == 404


# --- the plan in words --------------------------------------------------------------------------


def test_the_rules_in_words_are_the_whole_rule_set_and_the_transfer_options_only_for_it() -> None:
    plain = {line.label: line.value for line in words.rule_lines({})}
    assert plain["Variant"] == "Throw-in" and plain["Deck"] == "36 cards (6 to ace)"
    assert plain["A draw is possible"] == "yes" and "Transfer in the first bout" not in plain
    transfer = {
        line.label: line.value
        for line in words.rule_lines({"variant": "transfer", "transfer_first_bout": True})
    }
    assert transfer["Variant"] == "Transfer" and transfer["Transfer in the first bout"] == "yes"


def test_a_stage_in_words() -> None:
    assert words.series_text("best_of", 3) == "best of 3 games"
    assert words.series_text("first_to", 1) == "first to 1 point"
    assert words.series_text("long", 1) == "long durak"
    assert words.series_text("single", 1) == "one game"
    knockout = {"format": "knockout", "knockout_advance": 1}
    assert words.advance_text(knockout) == "the first out of each table goes on"
    groups = {"format": "round_robin", "advance": {"mode": "top_k_per_table", "count": 2}}
    assert words.advance_text(groups) == "the top 2 of each group go on"
    assert points_text(9.75) == "9.75" and points_text(3.0) == "3"
    assert points_text(None) == "—"
