"""What the public pages of an event show, formatted from the selectors' reads.

Every fact comes from :mod:`tournaments.selectors`, the same reads the API serves (``events``:
the stage plan, the rounds and their tables; ``standings``: every tie-break; ``brackets``: the
knockout tree; ``places``: the final places with payouts and ranks), so the pages and the API
cannot disagree, and each read there takes a fixed number
of queries: a page takes a few per stage (its plan fixes how many stages there are), none per
entry, table or round, whatever the size of the field.

Long events stay light: a stage's rounds are collapsed (``<details>``) with only the rounds in
play open and loaded; another round's tables come with ``?round=<id>`` (the script fetches
them when the round is opened); standings and final places come 50 lines to a page
(``?stage<n>_page=``, ``?final_page=``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import Any

from django.http import QueryDict
from django.urls import reverse
from django.utils import timezone
from django.utils.timesince import timeuntil
from django.utils.translation import gettext

from tournaments import selectors
from tournaments.models import Round, Stage, Table, Tournament
from tournaments.money import money
from tournaments.selectors import events
from tournaments.selectors.brackets import bracket as knockout_tree
from tournaments.selectors.people import current_ranks
from tournaments.selectors.places import final_count, final_places_page
from tournaments.selectors.standings import (
    StandingLine,
    stage_standings,
    stage_tie_breaks,
    standings_lines,
)
from tournaments.site.events import bracket, words
from tournaments.site.events.words import Line
from tournaments.wording import (
    TIE_BREAK_LABELS,
    Badge,
    decided_by_label,
    explanation_words,
    group_label,
    points_text,
    rank_title,
    round_name,
    stage_name,
    stage_names,
    status_badge,
    table_name,
)

PAGE_SIZE = 50


#: A player id no player has: reversed once, it stands for every profile's id in a big list.
PROFILE_ID = 987654321987654321


def profile_url(player_id: int | None) -> str:
    """A player's public profile (the people pages: ``/players/<id>/``); "" for none."""
    return reverse("player", args=[player_id]) if player_id else ""


def table_url(table_id: int, status: str = "", last_game: int | None = None) -> str:
    """Where a table's link goes: its live page while it plays (or waits), the replay of its
    last game once finished (a series: the game that decided it; the replay links the others)."""
    if status == Table.Status.FINISHED and last_game is not None:
        return reverse("game-replay", args=[last_game])
    return reverse("table", args=[table_id])


# --- paging -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PageLink:
    number: int
    href: str
    current: bool


@dataclass(frozen=True)
class Pager:
    """One page of a long list: lines ``start``..``end`` of ``total``, and links to the others
    (the first, the last and those near this one; None for a gap)."""

    number: int
    pages: int
    total: int
    start: int
    end: int
    links: list[PageLink | None]
    previous: str
    next: str

    @property
    def needed(self) -> bool:
        return self.pages > 1


def query_with(query: QueryDict, key: str, value: str | None, anchor: str = "") -> str:
    """The page's query string with ``key`` set to ``value`` (removed for None)."""
    changed = query.copy()
    if value is None:
        changed.pop(key, None)
    else:
        changed[key] = value
    text = changed.urlencode()
    return (f"?{text}" if text else "?") + (f"#{anchor}" if anchor else "")


def paginate(
    rows: Sequence[Any], query: QueryDict, key: str, anchor: str, size: int = PAGE_SIZE
) -> tuple[Sequence[Any], Pager]:
    """The page of ``rows``, ``size`` to a page, that ``?<key>=`` asks for (the first for none
    or nonsense, the last for one past it)."""
    total = len(rows)
    pages = max(1, -(-total // size))
    try:
        number = min(max(1, int(query.get(key, "1"))), pages)
    except ValueError:
        number = 1

    def href(n: int) -> str:
        return query_with(query, key, None if n == 1 else str(n), anchor)

    shown = sorted({1, pages, *range(max(1, number - 2), min(pages, number + 2) + 1)})
    links: list[PageLink | None] = []
    for n in shown:
        if links and links[-1] is not None and n - links[-1].number > 1:
            links.append(None)
        links.append(PageLink(n, href(n), n == number))
    start = (number - 1) * size
    return rows[start : start + size], Pager(
        number=number,
        pages=pages,
        total=total,
        start=start + 1 if total else 0,
        end=min(total, start + size),
        links=links,
        previous=href(number - 1) if number > 1 else "",
        next=href(number + 1) if number < pages else "",
    )


# --- tables and rounds --------------------------------------------------------------------------

#: Tables to a page of a round: a 10,000-entry swiss seats 2,500 at once.
TABLES_PAGE_SIZE = 24
#: The longest name looked for (``?find=``).
FIND_LENGTH = 60


@dataclass(frozen=True)
class Find:
    """A round's search for the tables of a player by name (``?find=``): a form that works
    without a script, carrying the rest of the page's query."""

    text: str  # what is looked for; "" for nothing
    found: int  # the tables found (every table when nothing is looked for)
    hidden: list[tuple[str, str]]  # the page's other parameters, kept by the form
    clear_href: str  # the page without the search


def find_text(query: QueryDict) -> str:
    """What ``?find=`` looks for, trimmed ("" for nothing)."""
    return " ".join(query.get("find", "").split())[:FIND_LENGTH]


def _find(query: QueryDict, round_id: int, text: str, found: int) -> Find:
    # A new search starts on the first page of every round's tables.
    kept = [
        (key, value)
        for key, values in query.lists()
        if key != "find" and not (key.startswith("round") and key.endswith("_page"))
        for value in values
    ]
    if str(round_id) not in query.getlist("round"):
        kept.append(("round", str(round_id)))
    clear = query.copy()
    clear.pop("find", None)
    for key in [k for k in clear if k.startswith("round") and k.endswith("_page")]:
        clear.pop(key)
    return Find(
        text=text,
        found=found,
        hidden=kept,
        clear_href=(f"?{clear.urlencode()}" if clear else "?") + f"#round-{round_id}",
    )


def _group(score_group: str) -> str:
    """A table's score group in words; a swiss score group (a number of points) says so."""
    words_ = group_label(score_group)
    if words_ and words_ == score_group:
        return gettext("score group %(points)s") % {"points": score_group}
    return words_


@dataclass(frozen=True)
class SeatLine:
    position: int
    name: str
    href: str
    bot: bool
    place: int | None  # in the result in force
    fool: bool
    drawn: bool
    advances: bool
    points: str  # the series so far ("" for a single game)
    fools: int


@dataclass(frozen=True)
class TableCard:
    id: int
    number: int
    title: str  # "Table 1" (``wording.table_name``)
    status: str
    status_label: str
    is_bye: bool
    group: str
    href: str
    series: str  # "game 2 of best of 3"; "" for a single game
    seats: list[SeatLine]
    compromises: list[str]


def table_cards(
    rows: Sequence[Mapping[str, Any]], players: Mapping[int, int | None], advance: int | None
) -> list[TableCard]:
    """Tables (``events.table_rows``) as cards: seats in order with their series score and their
    place in the result; ``advance``: how many of a knockout table go on (None: not one)."""
    cards = []
    for row in rows:
        result = row["result"]
        places: dict[int, Mapping[str, Any]] = {}
        if result is not None:
            places = {p["entry"]["id"]: p for p in result["places"] if p["entry"]}
        series = row["series"]
        score = {}
        text = ""
        if series is not None and series["format"] != Stage.SeriesFormat.SINGLE:
            score = {s["position"]: s for s in series["seats"]}
            text = gettext("%(series)s, %(games)s played") % {
                "series": words.series_text(series["format"], series["target"]),
                "games": series["games_played"],
            }
        seats = []
        for seat in row["seats"]:
            entry = seat["entry"]["id"]
            placed = places.get(entry)
            in_series = score.get(seat["position"])
            place = placed["place"] if placed else None
            seats.append(
                SeatLine(
                    position=seat["position"] + 1,
                    name=seat["player"]["name"],
                    href=profile_url(players.get(entry) or seat["player"]["id"]),
                    bot=seat["bot"],
                    place=place,
                    fool=bool(placed and placed["fool"]),
                    drawn=bool(placed and placed["drawn"]),
                    advances=advance is not None and place is not None and place <= advance,
                    points=points_text(in_series["points"]) if in_series else "",
                    fools=in_series["fools"] if in_series else 0,
                )
            )
        if places:  # finished: first out first
            seats.sort(key=lambda s: (s.place is None, s.place or 0, s.position))
        cards.append(
            TableCard(
                id=row["id"],
                number=row["number"],
                title=table_name(row["number"]),
                status=row["status"],
                status_label=bracket.status_label(row["status"]),
                is_bye=row["is_bye"],
                group=_group(row["score_group"] or ""),
                href="" if row["is_bye"] else table_url(row["id"], row["status"], row["last_game"]),
                series=text,
                seats=seats,
                compromises=row["compromises"],
            )
        )
    return cards


@dataclass
class RoundBlock:
    id: int
    number: int
    title: str
    status: str
    status_label: str
    paired_at: Any
    finished_at: Any
    total: int
    finished: int
    playing: int
    waiting: int
    byes: int
    explanation: list[tuple[str, list[str]]]
    open: bool
    load_href: str  # the page with this round's tables (no script)
    tables: list[TableCard] | None = None  # None: not loaded (collapsed); else a page of them
    pager: Pager | None = None  # the pages of its tables (of those found, when looking)
    mine: list[TableCard] = field(default_factory=list)  # the reader's, when not on this page
    find: Find | None = None  # the search by name (a round with more than a page of tables)

    @property
    def anchor(self) -> str:
        return f"round-{self.id}"


# --- standings ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class StandingCells:
    """A standings line (``selectors.standings.StandingLine``) as the page's cells."""

    place: int
    name: str
    href: str
    rank: str  # the player's current rank (звание) in the reader's language, "" for none
    points: str
    played: int
    byes: int
    tie_breaks: list[str]
    fools: int
    pogony_given: int
    pogony_received: int
    decided_by: str
    qualifies: bool


@dataclass(frozen=True)
class Standings:
    columns: list[str]  # the tie-break columns, in the order they apply
    lines: Sequence[StandingCells]
    pager: Pager
    qualify_note: str


def _tie_break_value(line: StandingLine, criterion: str) -> str:
    if criterion == "first_places":
        return str(line.first_places)
    if criterion == "fewest_fools":
        return str(line.fools)
    if criterion == "buchholz":
        return points_text(line.buchholz)
    if criterion == "head_to_head":
        return points_text(line.head_to_head)
    return str(getattr(line, criterion, "—"))


def standings(
    stage: Stage,
    rows: Sequence[StandingLine],
    query: QueryDict,
    *,
    key: str = "",
    size: int = PAGE_SIZE,
) -> Standings:
    """A stage's standings (``selectors.standings.stage_standings``) with a column per tie-break
    (points aside: they have their own), the qualifiers marked, each player's current rank
    (``selectors.people.current_ranks``) next to its name, linked to its profile (the line's
    ``player_id``: its entry's player); ``size`` lines to a page, the one ``?<key>=`` asks for
    (default: ``?stage<order>_page=``)."""
    criteria = [c for c in stage_tie_breaks(stage) if c != "points"]
    top = stage.advance_count if stage.advance_mode == Stage.AdvanceMode.TOP_N else 0
    note = ""
    if top:
        note = gettext("The top %(n)s go on to the next stage.") % {"n": top}
    # The page first, then its cells: a 10,000-entry stage shows 1 page of them, not 10,000.
    anchor = f"standings-{stage.order}"
    shown, pager = paginate(rows, query, key or f"stage{stage.order}_page", anchor, size)
    ranks = current_ranks(row.player_id for row in shown if row.player_id)
    # A big field shares a few dozen values of points, Buchholz and "decided by": each worded
    # once. A profile's address is the same but for its id: reversed once.
    texts: dict[Any, str] = {}
    labels: dict[str | None, str] = {}
    profile = reverse("player", args=[PROFILE_ID])

    def text(value: Fraction | None) -> str:
        if value not in texts:
            texts[value] = points_text(value)
        return texts[value]

    def cell(row: StandingLine, criterion: str) -> str:
        if criterion in {"buchholz", "head_to_head"}:
            return text(getattr(row, criterion))
        return _tie_break_value(row, criterion)

    def label(criterion: str) -> str:
        if criterion not in labels:
            labels[criterion] = decided_by_label(criterion)
        return labels[criterion]

    lines = []
    for row in shown:
        player = row.player_id
        lines.append(
            StandingCells(
                place=row.place,
                name=row.name,
                href=profile.replace(str(PROFILE_ID), str(player)) if player else "",
                rank=rank_title(ranks.get(player or 0)),
                points=text(row.points),
                played=row.played,
                byes=row.byes,
                tie_breaks=[cell(row, c) for c in criteria],
                fools=row.fools,
                pogony_given=row.pogony_given,
                pogony_received=row.pogony_received,
                decided_by=label(row.decided_by),
                qualifies=bool(top) and row.position <= top,
            )
        )
    return Standings(
        columns=[str(TIE_BREAK_LABELS.get(c, c)) for c in criteria],
        lines=lines,
        pager=pager,
        qualify_note=note,
    )


# --- stages -------------------------------------------------------------------------------------


@dataclass
class StageBlock:
    stage: Stage
    current: bool = False  # the stage in play
    summary: list[str] = field(default_factory=list)  # the plan in short phrases
    scoring: list[Line] = field(default_factory=list)
    rounds: list[RoundBlock] = field(default_factory=list)
    standings: Standings | None = None
    picture: bracket.Picture | None = None
    title: str = ""  # the stage's name among its event's (``wording.stage_names``)

    @property
    def name(self) -> str:
        return self.title or stage_name(self.stage.name, self.stage.format)

    @property
    def status(self) -> str:
        return self.stage.status

    @property
    def status_label(self) -> str:
        return status_badge("stage", self.stage.status).label

    @property
    def format_label(self) -> str:
        return str(Stage.Format(self.stage.format).label)

    @property
    def order(self) -> int:
        return self.stage.order

    @property
    def is_knockout(self) -> bool:
        return self.stage.format == Stage.Format.KNOCKOUT

    @property
    def anchor(self) -> str:
        return f"stage-{self.stage.order}"


def picture(stage: Stage, players: Mapping[int, int | None]) -> bracket.Picture | None:
    """A knockout stage's bracket drawn (``selectors.brackets.bracket``); None before the stage
    begins."""
    if stage.status == Stage.Status.PENDING:
        return None
    return bracket.layout(
        knockout_tree(stage),
        profile=lambda entry: profile_url(players.get(entry)),
        table_url=table_url,
    )


def _round_blocks(
    stage: Stage,
    summaries: Sequence[Mapping[str, Any]],
    *,
    running: bool,
    current: bool,
    requested: set[int],
    query: QueryDict,
) -> list[RoundBlock]:
    started = [r for r in summaries if r["status"] != Round.Status.PENDING]
    last_started = started[-1]["id"] if started else None
    knockout = stage.format == Stage.Format.KNOCKOUT
    blocks = []
    for row in summaries:
        # Open: the rounds in play, the last one of the stage in play (between two rounds), and
        # the one asked for; the others stay collapsed and unloaded.
        is_open = (
            row["id"] in requested
            or (running and row["status"] == Round.Status.PLAYING)
            or (running and current and row["id"] == last_started)
        )
        title = round_name(
            row["number"], knockout=knockout, rounds=summaries[-1]["number"] if summaries else None
        )
        counts = row["tables"]
        blocks.append(
            RoundBlock(
                id=row["id"],
                number=row["number"],
                title=title,
                status=row["status"],
                status_label=status_badge("round", row["status"]).label,
                paired_at=row["paired_at"],
                finished_at=row["finished_at"],
                total=counts["total"],
                finished=counts["finished"],
                playing=counts["playing"],
                waiting=counts["waiting"],
                byes=counts["byes"],
                explanation=explanation_words(row["explanation"]),
                open=is_open,
                load_href=query_with(query, "round", str(row["id"]), f"round-{row['id']}"),
            )
        )
    return blocks


def _load_tables(
    blocks: Sequence[StageBlock],
    players: Mapping[int, int | None] | None,
    query: QueryDict,
    player_id: int | None,
) -> None:
    """A page of the tables of every open round of the page (``?round<id>_page=``; those with a
    player named as ``?find=`` asks), and the reader's own table (``player_id``'s) when it is
    not on that page: five queries (none when no round is open), whatever the rounds' size.
    ``players``: the event's entries' players, if the page has read them all (else those of
    the seats shown are read)."""
    wanted = {r.id: (s, r) for s in blocks for r in s.rounds if r.open}
    if not wanted:
        return
    text = find_text(query)
    index = events.round_table_index(
        list(wanted),
        find=text,
        player_id=player_id,
        tournament_id=blocks[0].stage.tournament_id,
    )
    shown: dict[int, list[int]] = {}
    mine: dict[int, list[int]] = {}
    for round_id, (_, round_block) in wanted.items():
        lines = index[round_id]
        found = [line.id for line in lines if line.found]
        page, round_block.pager = paginate(
            found, query, f"round{round_id}_page", f"round-{round_id}", TABLES_PAGE_SIZE
        )
        shown[round_id] = list(page)
        mine[round_id] = [line.id for line in lines if line.mine and line.id not in page]
        if text or len(lines) > TABLES_PAGE_SIZE:
            round_block.find = _find(query, round_id, text, len(found))
    ids = [i for ids in (*shown.values(), *mine.values()) for i in ids]
    rows = events.table_rows(Table.objects.filter(pk__in=ids)) if ids else []
    by_id = {row["id"]: row for row in rows}
    if players is None:
        seated = {seat["entry"]["id"] for row in rows for seat in row["seats"]}
        players = selectors.entry_players(blocks[0].stage.tournament, seated) if seated else {}
    for round_id, (block, round_block) in wanted.items():
        stage = block.stage
        last = stage.format == Stage.Format.KNOCKOUT and round_block is block.rounds[-1]
        advance = (
            (stage.knockout_advance or 1)
            if stage.format == Stage.Format.KNOCKOUT and not last
            else None
        )
        round_block.tables = table_cards(
            [by_id[i] for i in shown[round_id] if i in by_id], players, advance
        )
        round_block.mine = table_cards(
            [by_id[i] for i in mine[round_id] if i in by_id], players, advance
        )


# --- the final places ---------------------------------------------------------------------------


@dataclass(frozen=True)
class FinalLine:
    place: int
    name: str
    href: str
    points: str
    pogony_given: int
    pogony_received: int
    rank: str
    payout: str


@dataclass(frozen=True)
class Final:
    lines: Sequence[FinalLine]
    pager: Pager
    podium: list[FinalLine]  # every line placed 1–3: a shared place shows each of its entries
    pool: list[Line]
    paid_out: str
    # Points are shown when they compare: every entry left the same stage (they are each
    # entry's points in the stage it left, ``selectors.places.FinalPlace``).
    has_points: bool


def final(
    tournament: Tournament,
    detail: Mapping[str, Any],
    players: Mapping[int, int | None] | None,
    query: QueryDict,
    *,
    key: str = "final_page",
    size: int = PAGE_SIZE,
    standings: Mapping[int, Sequence[StandingLine]] | None = None,
) -> Final:
    """The final places (``selectors.places.final_places``): payouts and ranks, the prize
    pool; ``size`` lines to a page, the one ``?<key>=`` asks for. ``standings``: the stages'
    standings the page shows (by order), whose points the final places take. ``players``:
    the event's entries' players, if the page has read them all (else those of the lines
    shown are read)."""
    code = tournament.currency

    def line(row: Any) -> FinalLine:
        return FinalLine(
            place=row.place,
            name=row.name,
            href=profile_url(named_players.get(row.entry_id)),
            points=points_text(row.points),
            pogony_given=row.pogony_given,
            pogony_received=row.pogony_received,
            rank=rank_title(row.rank),
            payout="" if row.payout is None else money(row.payout, code),
        )

    # The page first, then its lines (and the podium's), read a page at a time: not 10,000
    # of them for a big field.
    _, pager = paginate(range(final_count(tournament)), query, key, "final", size)
    start = max(0, pager.start - 1)
    places = final_places_page(tournament, start, start + size, standings)
    paid = places.paid_out
    named_players: Mapping[int, int | None] = players or {}
    if players is None:
        named = {row.entry_id for row in (*places.lines, *places.podium)}
        named_players = selectors.entry_players(tournament, named) if named else {}
    return Final(
        lines=[line(row) for row in places.lines],
        pager=pager,
        podium=[line(row) for row in places.podium],
        pool=pool_lines(detail),
        paid_out=money(paid, code) if paid else "",
        has_points=places.stages_left == 1,
    )


def pool_lines(detail: Mapping[str, Any]) -> list[Line]:
    """The prize pool as last computed: the total, the fees paid, the rake, the entries."""
    money_row = detail["money"]
    pool = money_row["prize_pool"]
    if pool is None:
        return []
    code = money_row["currency"]
    lines = [
        Line(gettext("Prize pool"), money(pool["total"], code)),
        Line(gettext("Fees paid"), money(pool["gross"], code)),
        Line(gettext("Rake"), money(pool["rake"], code)),
        Line(gettext("Paid entries"), str(pool["paid_entries"])),
    ]
    if not pool["final"]:
        lines.append(Line(gettext("State"), gettext("provisional: entries can still change")))
    return lines


# --- an open event: when it starts, who has registered --------------------------------------------


@dataclass(frozen=True)
class RegisteredLine:
    number: int
    name: str
    href: str
    club: str
    checked_in: bool


@dataclass(frozen=True)
class Registration:
    """An open event's start (``None``: not planned yet) and its field so far, a page of it."""

    starts_at: datetime | None
    starts_in: str  # "in 2 days, 3 hours"; "" once the planned time has passed
    lines: Sequence[RegisteredLine]
    pager: Pager


def starts_in(starts_at: datetime | None, now: datetime) -> str:
    """How long until ``starts_at``, in words ("in 1 day, 2 hours"); "" for none or past."""
    if starts_at is None or starts_at <= now:
        return ""
    return gettext("in %(time)s") % {"time": timeuntil(starts_at, now, depth=2)}


def registration(tournament: Tournament, query: QueryDict) -> Registration:
    """The open event's start and who has registered (``events.registered_entries``, one
    query), 50 names to a page (``?entries_page=``), each linking to the player's profile."""
    rows = events.registered_entries(tournament)
    # The page first, then its lines: not 10,000 profile links for a big field.
    shown, pager = paginate(rows, query, "entries_page", "registered")
    lines = [
        RegisteredLine(
            number=index,
            name=row["name"],
            href=profile_url(row["player_id"]),
            club=row["club"],
            checked_in=row["checked_in"],
        )
        for index, row in enumerate(shown, start=pager.start)
    ]
    return Registration(
        starts_at=tournament.starts_at,
        starts_in=starts_in(tournament.starts_at, timezone.now()),
        lines=lines,
        pager=pager,
    )


# --- the page -----------------------------------------------------------------------------------


@dataclass
class EventPage:
    tournament: Tournament
    detail: Mapping[str, Any]
    status_label: str
    stages: list[StageBlock]
    final: Final | None
    rules: list[Line]
    play: list[Line]
    money: list[Line]
    pool: list[Line]
    current: StageBlock | None
    registration: Registration | None = None  # while registration is open

    @property
    def badge(self) -> Badge:
        """The event's status badge; ``badge.live``: only a running event says it is live."""
        return status_badge("tournament", self.tournament.status)

    @property
    def feed_path(self) -> str:
        return f"/ws/tournaments/{self.tournament.slug}/"

    @property
    def entry_count(self) -> int:
        return int(self.detail["entry_count"])


def status_label(tournament: Tournament) -> str:
    return status_badge("tournament", tournament.status).label


def _requested_rounds(query: QueryDict) -> set[int]:
    """The rounds ``?round=<id>`` asks to open (repeated: several), at most 20."""
    return {int(v) for v in query.getlist("round")[:20] if v.isdigit() and len(v) < 12}


def event_page(
    tournament: Tournament, query: QueryDict, *, player_id: int | None = None
) -> EventPage:
    """Everything the tournament page shows; ``query``: the page's (``?round=``, ``?find=``, the
    pages of its standings, tables and final places); ``player_id``: the reader's player, whose
    table comes first in an open round."""
    stages = list(tournament.stages.order_by("order"))
    detail = events.tournament_detail(tournament, stages, payouts=False)
    # Every entry's player for a bracket drawn; else only those the page names (a standings
    # line has its own; the tables and the final places read those they show).
    players = (
        selectors.entry_players(tournament)
        if any(
            s.format == Stage.Format.KNOCKOUT and s.status != Stage.Status.PENDING for s in stages
        )
        else None
    )
    current = selectors.current_of(stages)
    running = tournament.status == Tournament.Status.RUNNING
    finished = tournament.status == Tournament.Status.FINISHED
    requested = _requested_rounds(query)
    plans = {row["order"]: row for row in detail["stages"]}
    blocks = []
    shown: dict[int, Sequence[StandingLine]] = {}  # the stages' standings, by order
    for stage in stages:
        row = plans[stage.order]
        block = StageBlock(
            stage=stage,
            title=row["name"],
            current=current is not None and stage.pk == current.pk and running,
            summary=words.stage_summary(row),
            scoring=words.scoring_lines(row),
        )
        block.rounds = _round_blocks(
            stage,
            events.round_summaries(stage),
            running=running,
            current=block.current,
            requested=requested,
            query=query,
        )
        if stage.format == Stage.Format.KNOCKOUT:
            block.picture = picture(stage, players or {})
        elif stage.status != Stage.Status.PENDING:
            # Each line made as the page reads it; a finished event's final places read every
            # line's points: made at once, as kept.
            shown[stage.order] = (stage_standings if finished else standings_lines)(stage)
            block.standings = standings(stage, shown[stage.order], query)
        blocks.append(block)
    _load_tables(blocks, players, query, player_id)
    return EventPage(
        tournament=tournament,
        detail=detail,
        status_label=status_label(tournament),
        stages=blocks,
        final=final(tournament, detail, players, query, standings=shown) if finished else None,
        rules=words.rule_lines(detail["rules"]),
        play=words.play_lines(detail["play"], tournament.team_size),
        money=words.money_lines(detail["money"]),
        pool=pool_lines(detail),
        current=next((b for b in blocks if b.current), None),
        registration=(
            registration(tournament, query)
            if tournament.status == Tournament.Status.REGISTRATION
            else None
        ),
    )


# --- the embeds ---------------------------------------------------------------------------------


def _stage_number(query: QueryDict) -> int | None:
    try:
        return int(query.get("stage", ""))
    except ValueError:
        return None


#: The lines an embed shows at once (``?limit=``): by default, and at most.
EMBED_LIMIT = 50
EMBED_LIMIT_MAX = 200


def embed_limit(query: QueryDict) -> int:
    """``?limit=<n>``: the lines to a page of an embed, 1 to :data:`EMBED_LIMIT_MAX`
    (:data:`EMBED_LIMIT` for none or nonsense)."""
    try:
        return min(max(1, int(query.get("limit", ""))), EMBED_LIMIT_MAX)
    except ValueError:
        return EMBED_LIMIT


@dataclass
class StandingsEmbed:
    tournament: Tournament
    status_label: str
    stage: StageBlock | None  # None: the final places
    final: Final | None
    title: str
    full_href: str  # every line, on the tournament page

    @property
    def pager(self) -> Pager:
        if self.final is not None:
            return self.final.pager
        assert self.stage is not None and self.stage.standings is not None
        return self.stage.standings.pager


def standings_embed(tournament: Tournament, query: QueryDict) -> StandingsEmbed | None:
    """``?stage=<n>``: that stage's standings; else the final places once the event has
    finished, else the current stage's (or the last that has standings). None: no such stage,
    or a knockout (its standings are its bracket). A page of them: ``?limit=`` lines
    (:func:`embed_limit`), the ``?page=`` asked for, and a link to them all."""
    asked = _stage_number(query)
    stages = list(tournament.stages.order_by("order"))
    finished = tournament.status == Tournament.Status.FINISHED
    size = embed_limit(query)
    page_url = reverse("tournament", args=[tournament.slug])
    if asked is None and finished:
        detail = events.tournament_detail(tournament, stages, payouts=False)
        return StandingsEmbed(
            tournament,
            status_label(tournament),
            None,
            final(tournament, detail, None, query, key="page", size=size),
            gettext("Final places"),
            f"{page_url}#final",
        )
    stage = _standings_stage(stages, asked)
    if stage is None:
        return None
    block = StageBlock(stage=stage, title=stage_names(stages)[stage.order])
    rows = standings_lines(stage)
    block.standings = standings(stage, rows, query, key="page", size=size)
    full = f"{page_url}#standings-{stage.order}"
    return StandingsEmbed(tournament, status_label(tournament), block, None, block.name, full)


def _standings_stage(stages: Sequence[Stage], asked: int | None) -> Stage | None:
    with_standings = [s for s in stages if s.format != Stage.Format.KNOCKOUT]
    if asked is not None:
        return next((s for s in with_standings if s.order == asked), None)
    current = selectors.current_of(stages)
    if current is not None and current.format != Stage.Format.KNOCKOUT:
        return current
    started = [s for s in with_standings if s.status != Stage.Status.PENDING]
    candidates = started or with_standings
    return candidates[-1] if candidates else None


def bracket_embed(tournament: Tournament, query: QueryDict) -> StageBlock | None:
    """``?stage=<n>``: that knockout stage's bracket; else the current stage's if it is a
    knockout, else the last knockout stage's. None: no such knockout stage."""
    asked = _stage_number(query)
    stages = list(tournament.stages.order_by("order"))
    knockouts = [s for s in stages if s.format == Stage.Format.KNOCKOUT]
    if asked is not None:
        stage = next((s for s in knockouts if s.order == asked), None)
    else:
        current = selectors.current_of(stages)
        stage = current if current in knockouts else (knockouts[-1] if knockouts else None)
    if stage is None:
        return None
    players = selectors.entry_players(tournament)
    return StageBlock(
        stage=stage, picture=picture(stage, players), title=stage_names(stages)[stage.order]
    )


THEMES = ("light", "dark", "auto")


def theme(query: QueryDict) -> str:
    """``?theme=light|dark|auto`` (auto follows the reader's system); light otherwise."""
    asked = query.get("theme", "light")
    return asked if asked in THEMES else "light"
