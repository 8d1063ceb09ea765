"""The schema's OpenAPI ``links``: how an answer leads to the next operation.

:data:`LINKS` says, per operation and success status, which operations a client may call next
and where their path parameters come from (OpenAPI runtime expressions: ``$response.body#/slug``
is the answer's ``slug``, ``$request.path.slug`` the request's own). :func:`add_links` (a
drf-spectacular postprocessing hook, ``SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"]``) writes
them into the schema, in one place; generated clients show them, and schemathesis's stateful
phase follows them (a tournament's list to its detail, its rounds, its ``/live/`` and event log,
a round's table to its detail, its game, its stream and its result, an entry just registered to
its withdrawal, a webhook just made to its ping, secret and deliveries...).

A new operation gets its links by a row here: ``(source operationId, status, name, target
operationId, {parameter: expression})``. A row whose operation is not in the schema is left out
of it; ``tests/api/test_contract.py`` checks that every row names operations and parameters that
exist, so a renamed operation cannot lose its links silently.
"""

from __future__ import annotations

from typing import Any

SLUG = "$request.path.slug"
ORDER = "$request.path.order"
ID = "$request.path.id"
TABLE = "$response.body#/tables/0/id"

#: (source operationId, status, link name, target operationId, its path parameters).
LINKS: list[tuple[str, str, str, str, dict[str, str]]] = [
    ("api_index", "200", "tournaments", "tournaments_list", {}),
    ("api_index", "200", "leagues", "leagues_list", {}),
    ("api_index", "200", "players", "players_list", {}),
    ("api_index", "200", "teams", "teams_list", {}),
    (
        "tournaments_list",
        "200",
        "tournament",
        "tournaments_retrieve",
        {"slug": "$response.body#/results/0/slug"},
    ),
    ("tournaments_retrieve", "200", "standings", "tournaments_standings_retrieve", {"slug": SLUG}),
    ("tournaments_retrieve", "200", "results", "tournaments_results_list", {"slug": SLUG}),
    ("tournaments_retrieve", "200", "register", "entries_register", {"slug": SLUG}),
    *[
        (
            "tournaments_retrieve",
            "200",
            name,
            target,
            {"slug": SLUG, "order": "$response.body#/stages/0/order"},
        )
        for name, target in (
            ("rounds", "tournaments_stages_rounds_list"),
            ("stage_standings", "tournaments_stages_standings_retrieve"),
            ("bracket", "tournaments_stages_bracket_retrieve"),
        )
    ],
    (
        "tournaments_stages_rounds_list",
        "200",
        "round",
        "tournaments_stages_rounds_retrieve",
        {"slug": SLUG, "order": ORDER, "number": "$response.body#/0/number"},
    ),
    (
        "tournaments_stages_rounds_list",
        "200",
        "pair",
        "rounds_request_pairing",
        {"slug": SLUG, "order": ORDER, "number": "$response.body#/0/number"},
    ),
    (
        "tournaments_stages_rounds_retrieve",
        "200",
        "table_result",
        "tables_result_enter",
        {"id": "$response.body#/tables/0/id"},
    ),
    (
        "tournaments_results_list",
        "200",
        "round",
        "tournaments_stages_rounds_retrieve",
        {
            "slug": SLUG,
            "order": "$response.body#/results/0/table/stage",
            "number": "$response.body#/results/0/table/round",
        },
    ),
    ("entries_register", "201", "withdraw", "entries_withdraw", {"id": "$response.body#/id"}),
    ("entries_register", "201", "check_in", "entries_check_in", {"id": "$response.body#/id"}),
    ("entries_check_in", "200", "withdraw", "entries_withdraw", {"id": "$response.body#/id"}),
    ("tables_result_enter", "201", "confirm", "results_confirm", {"id": "$response.body#/id"}),
    ("tables_result_enter", "201", "reject", "results_reject", {"id": "$response.body#/id"}),
    (
        "tournaments_create",
        "201",
        "tournament",
        "tournaments_retrieve",
        {"slug": "$response.body#/slug"},
    ),
    ("tournaments_create", "201", "register", "entries_register", {"slug": "$response.body#/slug"}),
    (
        "players_list",
        "200",
        "player",
        "players_retrieve",
        {"player_id": "$response.body#/results/0/id"},
    ),
    ("teams_list", "200", "team", "teams_retrieve", {"team_id": "$response.body#/results/0/id"}),
    (
        "leagues_list",
        "200",
        "league_table",
        "leagues_table_retrieve",
        {"slug": "$response.body#/results/0/slug"},
    ),
    # a round's tables, a table, its game and its stream (the table's `id`, its game's id)
    (
        "tournaments_stages_rounds_retrieve",
        "200",
        "table",
        "tables_retrieve",
        {"id": "$response.body#/tables/0/id"},
    ),
    (
        "tournaments_stages_rounds_retrieve",
        "200",
        "game",
        "games_retrieve",
        {"game_id": "$response.body#/tables/0/game"},
    ),
    ("tables_retrieve", "200", "game", "games_retrieve", {"game_id": "$response.body#/game"}),
    (
        "tables_retrieve",
        "200",
        "current_game",
        "games_retrieve",
        {"game_id": "$response.body#/current_game"},
    ),
    ("tables_retrieve", "200", "stream", "tables_stream_retrieve", {"id": "$request.path.id"}),
    ("tables_retrieve", "200", "result", "tables_result_enter", {"id": "$request.path.id"}),
    (
        "tables_retrieve",
        "200",
        "tournament",
        "tournaments_retrieve",
        {"slug": "$response.body#/tournament"},
    ),
    (
        "tables_retrieve",
        "200",
        "round",
        "tournaments_stages_rounds_retrieve",
        {
            "slug": "$response.body#/tournament",
            "order": "$response.body#/stage",
            "number": "$response.body#/round",
        },
    ),
    (
        "tournaments_stages_bracket_retrieve",
        "200",
        "table",
        "tables_retrieve",
        {"id": "$response.body#/nodes/0/id"},
    ),
    # the tournament's one call for an overlay, its event log and its stream
    ("tournaments_retrieve", "200", "live", "tournaments_live_retrieve", {"slug": SLUG}),
    ("tournaments_retrieve", "200", "events", "tournaments_events_retrieve", {"slug": SLUG}),
    (
        "tournaments_retrieve",
        "200",
        "events_stream",
        "tournaments_events_stream_retrieve",
        {"slug": SLUG},
    ),
    ("tournaments_live_retrieve", "200", "table", "tables_retrieve", {"id": TABLE}),
    ("tournaments_live_retrieve", "200", "stream", "tables_stream_retrieve", {"id": TABLE}),
    (
        "tournaments_live_retrieve",
        "200",
        "game",
        "games_retrieve",
        {"game_id": "$response.body#/tables/0/current_game"},
    ),
    (
        "tournaments_live_retrieve",
        "200",
        "player",
        "players_retrieve",
        {"player_id": "$response.body#/standings/0/player_id"},
    ),
    ("tournaments_live_retrieve", "200", "tournament", "tournaments_retrieve", {"slug": SLUG}),
    (
        "tournaments_live_retrieve",
        "200",
        "round",
        "tournaments_stages_rounds_retrieve",
        {
            "slug": SLUG,
            "order": "$response.body#/stage/order",
            "number": "$response.body#/round/number",
        },
    ),
    # a webhook just made, or the first of the list: its detail, secret, ping and deliveries
    *[
        (source, status, name, target, {"id": where})
        for source, status, where in (
            ("webhooks_create", "201", "$response.body#/id"),
            ("webhooks_list", "200", "$response.body#/results/0/id"),
        )
        for name, target in (
            ("webhook", "webhooks_retrieve"),
            ("update", "webhooks_update"),
            ("rotate_secret", "webhooks_rotate_secret"),
            ("ping", "webhooks_ping"),
            ("deliveries", "webhooks_deliveries_list"),
        )
    ],
    ("webhooks_retrieve", "200", "deliveries", "webhooks_deliveries_list", {"id": ID}),
    ("webhooks_retrieve", "200", "ping", "webhooks_ping", {"id": ID}),
    ("webhooks_retrieve", "200", "rotate_secret", "webhooks_rotate_secret", {"id": ID}),
    ("webhooks_rotate_secret", "200", "ping", "webhooks_ping", {"id": ID}),
    (
        "games_retrieve",
        "200",
        "actions",
        "games_actions_list",
        {"game_id": "$request.path.game_id"},
    ),
]


def operations_by_id(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        operation["operationId"]: operation
        for item in schema.get("paths", {}).values()
        for operation in item.values()
        if isinstance(operation, dict) and "operationId" in operation
    }


def add_links(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular's postprocessing hook: :data:`LINKS` into the schema's responses."""
    operations = operations_by_id(result)
    for source, status, name, target, parameters in LINKS:
        if source not in operations or target not in operations:
            continue
        response = operations[source]["responses"].get(status)
        if response is None:
            continue
        link: dict[str, Any] = {"operationId": target}
        if parameters:
            link["parameters"] = dict(parameters)
        response.setdefault("links", {})[name] = link
    return result
