"""The transfer variant in real browsers: a defender transfers by clicking a card and "Transfer",
the new defender shows a trump of the rank (проездной), and every page follows."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page

from games import engine
from games.models import Game
from tests.builders import session_cookie, start_live_table
from tests.e2e.conftest import CHROMIUM, asgi_server, chromium, open_table

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed"),
]

TRANSFER_RULES: dict[str, Any] = {
    "variant": "transfer",
    "transfer_first_bout": True,  # the situation is set up on the first bout
    "transfer_two_players": True,  # a 2-seat table: the transfer goes back to the attacker
    "trump_show": True,
}


def transfer_seed(game: Game) -> tuple[str, str, str, str]:
    """The first seed of a fixed list whose deal lets the attacker lead a plain card X, the
    defender transfer it with a plain card Y of its rank, and the attacker, now defending, show
    the trump Z of that rank: (seed, X, Y, Z)."""
    rules = engine.Rules.from_dict(game.rules)
    for n in range(10_000):
        seed = f"transfer-{n}"
        state = engine.new_game(rules, engine.rng_for_seed(seed), **game.setup)
        trump = state.public_json()["trump"]
        attacker, defender = state.hand(state.attacker), state.hand(state.defender)
        for x in attacker:
            z = x[0] + trump
            y = next((c for c in defender if c[0] == x[0] and c[1] != trump), None)
            if x[1] != trump and z in attacker and y is not None:
                return seed, x, y, z
    raise AssertionError("no seed of the list deals the situation")


def deal_again(game: Game, seed: str) -> None:
    """Deal the table's game anew from ``seed``, as ``services.game_create`` would have (the
    commitment is the seed's, so the deal stays checkable)."""
    state = engine.new_game(
        engine.Rules.from_dict(game.rules), engine.rng_for_seed(seed), **game.setup
    )
    Game.objects.filter(pk=game.pk).update(
        seed=seed, seed_commitment=engine.seed_commitment(seed), state=state.to_dict()
    )


def label(card: str) -> str:
    """A card as the page writes it: ``TS`` is 10♠."""
    return ("10" if card[0] == "T" else card[0]) + "♠♣♦♥"["SCDH".index(card[1])]


def wait_version(page: Page, expected: int) -> None:
    page.wait_for_function(
        "v => document.getElementById('live').dataset.version === v", arg=str(expected)
    )


def table_cards(page: Page) -> list[str]:
    cards: list[str] = page.evaluate(
        "[...document.querySelectorAll('#table .pair .attack')].map((el) => el.dataset.card)"
    )
    return cards


def log_lines(page: Page) -> list[str]:
    return page.locator("#log li").all_inner_texts()


@pytest.mark.slow
@pytest.mark.usefixtures("eager_jobs")
def test_a_transfer_and_a_shown_trump_by_clicking_reach_every_page(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # given a transfer game whose deal makes both moves possible on the first bout
    live = start_live_table(**TRANSFER_RULES)
    seed, x, y, z = transfer_seed(live.game)
    deal_again(live.game, seed)
    game = Game.objects.get(pk=live.game.pk)
    first = engine.GameState.from_dict(game.state)
    attacker_seat, defender_seat = first.attacker, first.defender
    errors: list[str] = []
    with asgi_server() as address, chromium(monkeypatch) as browser:
        pages = [
            open_table(
                browser,
                address,
                live.table.pk,
                cookie=session_cookie(user),
                locale="ru-RU",
                errors=errors,
            )
            for user in live.users
        ]
        spectator = open_table(browser, address, live.table.pk, locale="ru-RU", errors=errors)
        attacker, defender = pages[attacker_seat], pages[defender_seat]

        attacker.click(f'#hand .card[data-card="{x}"]')
        wait_version(defender, 1)
        assert table_cards(defender) == [x]

        # when the defender picks Y, which can only transfer, then clicks "Transfer"
        card = defender.locator(f'#hand .card[data-card="{y}"]')
        assert card.get_attribute("data-legal") == "transfer"
        assert defender.locator("#btn-transfer").is_visible()
        assert defender.locator("#btn-transfer").is_disabled()
        card.click()
        assert defender.locator(f'#hand .card.selected[data-card="{y}"]').count() == 1
        defender.click("#btn-transfer:enabled")

        # then every page shows both cards, and the attacker defends now
        for page in (*pages, spectator):
            wait_version(page, 2)
            assert table_cards(page) == [x, y]
            assert log_lines(page)[-1].endswith(f"переводит {label(y)}")
        assert attacker.locator("#prompt.go").inner_text().startswith("Ваш ход")

        # when the attacker, now defending, picks the trump Z and clicks "Show trump"
        card = attacker.locator(f'#hand .card[data-card="{z}"]')
        assert "show_trump" in (card.get_attribute("data-legal") or "").split()
        card.click()
        attacker.click("#btn-show-trump:enabled")

        # then the transfer goes on to the first defender; Z stays in its hand
        for page in (*pages, spectator):
            wait_version(page, 3)
            assert table_cards(page) == [x, y]
            assert log_lines(page)[-1].endswith(f"показывает козырь {label(z)}")
        assert attacker.locator(f'#hand .card[data-card="{z}"]').count() == 1
        assert defender.locator("#prompt.go").count() == 1
        spectator_defender = spectator.locator(f'.opponent[data-seat="{defender_seat}"] .defender')
        assert spectator_defender.count() == 1
        assert spectator.locator("#hand .card").count() == 0

    game = Game.objects.get(pk=live.game.pk)
    assert game.version == 3 and game.seed == seed
    moves = [a["type"] for a in game.actions.order_by("seq").values_list("action", flat=True)]
    assert moves == ["attack", "transfer", "show_trump"]
    state = engine.GameState.from_dict(game.state)
    assert state.defender == defender_seat
    assert errors == []
