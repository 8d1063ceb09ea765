"""Reading an organiser's list of players (CSV) for the console's import page
(``console.registration.tournament_import_players_view``): a pure function of the file's bytes,
no request and no database.

The file has a header row naming its columns: ``name`` (or ``имя``, ``игрок``), and optionally
``club`` (``клуб``) and ``rating`` (``рейтинг``), in any case and order; other columns are
ignored. It is UTF-8 (with or without a BOM) or Windows-1251 (Russian Excel), its cells
separated by ``,`` or ``;``. Each line is checked on its own (a name, 1 to 80 characters; a club
up to 80; a rating, empty or a number from 0 to 3000, a decimal comma allowed; not the same name
and club as an earlier line; no more filled cells than the header has columns; a quote closed on
its own line): a line's errors leave the others alone. A quote left open swallows the lines after
it into one cell: that row is refused naming the lines it swallowed, so no player is lost
silently. What makes the whole file
unreadable (too big, too many lines, no header, no name column, an unknown encoding) is a file
error, and then there are no rows.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from tournaments.services.people import SEED_RATING_MAX, SEED_RATING_MIN

MAX_BYTES = 1024 * 1024
MAX_ROWS = 2000
NAME_LENGTH = CLUB_LENGTH = 80  # Player.display_name, Player.club
COLUMNS = {
    "name": "name",
    "имя": "name",
    "игрок": "name",
    "club": "club",
    "клуб": "club",
    "rating": "rating",
    "рейтинг": "rating",
}


@dataclass(frozen=True)
class Row:
    """One line of players: ``line`` is its line number in the file (the header is line 1)."""

    line: int
    name: str
    club: str = ""
    rating: float | None = None
    errors: tuple[str, ...] = ()

    @property
    def valid(self) -> bool:
        return not self.errors


@dataclass
class ParsedFile:
    """The lines of a file, or (``errors``) why the file as a whole cannot be read."""

    rows: list[Row] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def valid_rows(self) -> list[Row]:
        return [] if self.errors else [row for row in self.rows if row.valid]


def refused(message: str) -> ParsedFile:
    return ParsedFile(errors=[message])


def too_big() -> ParsedFile:
    return refused(
        _("The file is larger than %(size)d KiB: split it into smaller files.")
        % {"size": MAX_BYTES // 1024}
    )


def decode(data: bytes) -> str | None:
    """The text of ``data``: UTF-8 (a BOM dropped), else Windows-1251; None if neither."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1251")
    except UnicodeDecodeError:
        return None


def delimiter_of(header: str) -> str:
    """``;`` or ``,``, whichever the header line has more of. The header alone decides:
    column names hold neither, whereas the data may (``"Иванов, Пётр"``; ``1500,5``), which
    is what throws ``csv.Sniffer`` off on small files."""
    return ";" if header.count(";") > header.count(",") else ","


def parse_rating(text: str) -> tuple[float | None, str | None]:
    """The rating in a cell, and an error (a translated message) or None."""
    if not text:
        return None, None
    try:
        value = float(text.replace(" ", "").replace("\u00a0", "").replace(",", "."))
    except ValueError:
        return None, _("The rating “%(value)s” is not a number.") % {"value": text}
    if not math.isfinite(value) or not SEED_RATING_MIN <= value <= SEED_RATING_MAX:
        return None, _("The rating %(value)s is not between %(min)d and %(max)d.") % {
            "value": text,
            "min": SEED_RATING_MIN,
            "max": SEED_RATING_MAX,
        }
    return value, None


def parse_players_csv(data: bytes) -> ParsedFile:
    """The players listed in a CSV file's ``data`` (see the module's docstring).

    >>> parsed = parse_players_csv("Имя;Клуб;Рейтинг\\nИванов;Спартак;1650\\n".encode("cp1251"))
    >>> parsed.rows
    [Row(line=2, name='Иванов', club='Спартак', rating=1650.0, errors=())]
    """
    if len(data) > MAX_BYTES:
        return too_big()
    text = decode(data)
    if text is None:
        return refused(_("The file is neither UTF-8 nor Windows-1251 text: save it as CSV again."))
    header_line = text.lstrip("\r\n").split("\n", 1)[0]
    try:
        lines = records_of(text, delimiter_of(header_line))
    except csv.Error as exc:
        return refused(_("The file is not valid CSV: %(error)s.") % {"error": exc})
    if not lines:
        return refused(_("The file is empty: it needs a header row and a line per player."))
    header_at, _header_last, header = lines[0]
    columns: dict[str, int] = {}
    for index, title in enumerate(header):
        key = COLUMNS.get(title.strip().lower())
        if key is not None and key not in columns:
            columns[key] = index
    if "name" not in columns:
        return refused(
            _("The header row (line %(line)d) has no “name” column (or “имя”, “игрок”).")
            % {"line": header_at}
        )
    records = lines[1:]
    if len(records) > MAX_ROWS:
        return refused(
            _("The file has %(count)d players; at most %(max)d are imported at once.")
            % {"count": len(records), "max": MAX_ROWS}
        )

    def cell(cells: list[str], key: str) -> str:
        index = columns.get(key)
        return cells[index].strip() if index is not None and index < len(cells) else ""

    parsed = ParsedFile()
    first_line: dict[tuple[str, str], int] = {}
    for line, last, cells in records:
        name, club = cell(cells, "name"), cell(cells, "club")
        rating, rating_error = parse_rating(cell(cells, "rating"))
        # a broken line's cells are not what they seem: its shape is its only error
        shape = shape_errors(line, last, cells, len(header))
        errors = shape or cell_errors(name, club, rating_error)
        if name and not shape:
            if (name, club) in first_line:
                errors.append(
                    _("The same player as line %(line)d.") % {"line": first_line[(name, club)]}
                )
            else:
                first_line[(name, club)] = line
        parsed.rows.append(Row(line, name, club, rating, tuple(errors)))
    return parsed


def cell_errors(name: str, club: str, rating_error: str | None) -> list[str]:
    """What is wrong with a well-formed line's cells."""
    errors = []
    if not name:
        errors.append(_("The name is empty."))
    elif len(name) > NAME_LENGTH:
        errors.append(_("The name is longer than %(max)d characters.") % {"max": NAME_LENGTH})
    if len(club) > CLUB_LENGTH:
        errors.append(_("The club is longer than %(max)d characters.") % {"max": CLUB_LENGTH})
    if rating_error:
        errors.append(rating_error)
    return errors


def shape_errors(line: int, last: int, cells: list[str], columns: int) -> list[str]:
    """What is wrong with a record's shape: a quoted cell running over lines ``line`` to
    ``last`` (a quote left open), or more filled cells than the header's ``columns`` (a name
    holding the separator, unquoted). Empty cells past the header are Excel's trailing
    separators and pass."""
    if last > line:
        return [
            _(
                "A quote opened on this line is closed only on line %(last)d, so lines "
                "%(first)d–%(last)d were read into one cell: close the quote (or remove it)."
            )
            % {"first": line + 1, "last": last}
        ]
    extra = [c for c in cells[columns:] if c.strip()]
    if extra:
        return [
            _(
                "The line has %(count)d filled cells but the header has %(columns)d columns: "
                "a name or club holding the separator must be in quotes."
            )
            % {"count": columns + len(extra), "columns": columns}
        ]
    return []


def records_of(text: str, delimiter: str) -> list[tuple[int, int, list[str]]]:
    """The non-blank records of ``text``, each with the lines it starts and ends on."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    records = []
    line = 1
    for cells in reader:
        if any(c.strip() for c in cells):
            records.append((line, reader.line_num, cells))
        line = reader.line_num + 1
    return records
