"""A Russian page's words, as its reader sees them: every visible text, label, button, option,
help text, message, title and placeholder, and the sentences among them written in Latin letters
only (an untranslated string). Proper things written in Latin anyway (CSV, QR, PDF, A4, a
currency code, a URL, a username, a code-like token) are not sentences."""

from __future__ import annotations

import re

from playwright.sync_api import Page

#: Every text a reader meets on the page: text nodes of the body (not scripts or styles), the
#: title, and the attributes that speak (buttons' values, titles, placeholders, labels for
#: screen readers, images' alternatives), options included.
TEXTS = """() => {
  const out = [document.title];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (parent && !parent.closest('script, style, noscript, code, pre, textarea')) {
      out.push(node.nodeValue);
    }
  }
  const speaking = 'input[type=submit], input[type=button], input[type=reset], button, [title],'
    + ' [placeholder], [aria-label], img[alt]';
  for (const element of document.body.querySelectorAll(speaking)) {
    for (const name of ['value', 'title', 'placeholder', 'aria-label', 'alt']) {
      const value = element.getAttribute(name);
      if (value && (name !== 'value' || element.tagName === 'INPUT')) out.push(value);
    }
  }
  return out;
}"""

#: Words that are names, not sentences: file formats and paper, codes, the rating's name.
PROPER = frozenset(
    {"csv", "qr", "pdf", "a4", "a5", "elo", "utf", "windows", "rub", "eur", "usd", "durak", "ok"}
)
#: Tokens that are not words: URLs, addresses, paths, slugs, identifiers, numbers with units.
CODE_LIKE = re.compile(r"\S*(?:://|@|/|_|\.\w|\d)\S*|\b[a-z]+(?:-[a-z0-9]+)+\b")
#: A text splits into segments at sentence ends and at separators between phrases.
SEGMENT = re.compile(r"[.!?;:·|()\[\]«»\"“”—–\n]+")
CYRILLIC = re.compile(r"[А-Яа-яЁё]")
LATIN_WORD = re.compile(r"\b[A-Za-z][a-z']*[a-z]\b|\b[A-Z]{2,}\b")


def latin_sentences(texts: list[str], allowed: frozenset[str] = frozenset()) -> list[str]:
    """The segments of ``texts`` made of two Latin words or more and no Cyrillic letter, once
    each; ``allowed``: more proper words (the page's usernames, the event's own Latin name).

    >>> latin_sentences(["Кубок · Swiss system", "CSV (UTF-8)", "https://x.org/a b", "Нет"])
    ['Swiss system']
    >>> latin_sentences(["Log out", "organiser"], allowed=frozenset({"organiser"}))
    ['Log out']
    """
    proper = PROPER | {word.lower() for word in allowed}
    found: list[str] = []
    for text in texts:
        for piece in SEGMENT.split(text):
            segment = " ".join(piece.split())
            if not segment or CYRILLIC.search(segment) or segment in found:
                continue
            words = [
                w
                for w in LATIN_WORD.findall(CODE_LIKE.sub(" ", segment))
                if w.lower() not in proper
            ]
            if len(words) >= 2:
                found.append(segment)
    return found


def latin_on(page: Page, allowed: frozenset[str] = frozenset()) -> list[str]:
    """The Latin-only sentences a reader of ``page`` meets (see ``latin_sentences``)."""
    return latin_sentences(page.evaluate(TEXTS), allowed)
