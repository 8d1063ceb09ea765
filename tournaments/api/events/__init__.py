"""The events part of the API: tournaments, their stages, rounds, tables and results, the
standings (per stage and final), the knockout tree, the leagues and their tables, and the
downloads of standings and results (:mod:`tournaments.api.exports`).

- the reads are the domain's (:mod:`tournaments.selectors`: events, standings, places,
  brackets, leagues, visibility), each in a fixed number of queries;
- :mod:`~tournaments.api.events.rows`: the selectors' typed rows in the JSON shapes;
- :mod:`~tournaments.api.events.serializers`: the output shapes;
- :mod:`~tournaments.api.events.views`: one view per operation.
"""

from __future__ import annotations

from django.urls import path

from tournaments.api import exports
from tournaments.api.events import live, views

T = "tournaments/<slug:slug>/"
S = T + "stages/<int:order>/"

urlpatterns = [
    path("tournaments/", views.TournamentListView.as_view(), name="tournament-list"),
    path(T, views.TournamentDetailView.as_view(), name="tournament-detail"),
    path(T + "live/", live.LiveView.as_view(), name="tournament-live"),
    path(S + "rounds/", views.RoundListView.as_view(), name="round-list"),
    path(S + "rounds/<int:number>/", views.RoundDetailView.as_view(), name="round-detail"),
    path(S + "standings/", views.StageStandingsView.as_view(), name="stage-standings"),
    path(S + "bracket/", views.BracketView.as_view(), name="stage-bracket"),
    path(T + "standings/", views.FinalStandingsView.as_view(), name="final-standings"),
    path(T + "results/", views.ResultListView.as_view(), name="result-list"),
    path("leagues/", views.LeagueListView.as_view(), name="league-list"),
    path("leagues/<slug:slug>/table/", views.LeagueTableView.as_view(), name="league-table"),
    path(S + "standings.csv", exports.StageStandingsCsvView.as_view(), name="stage-standings-csv"),
    path(
        S + "standings.json", exports.StageStandingsJsonView.as_view(), name="stage-standings-json"
    ),
    path(T + "standings.csv", exports.FinalStandingsCsvView.as_view(), name="final-standings-csv"),
    path(
        T + "standings.json", exports.FinalStandingsJsonView.as_view(), name="final-standings-json"
    ),
    path(T + "results.csv", exports.ResultsCsvView.as_view(), name="results-csv"),
    path(T + "results.json", exports.ResultsJsonView.as_view(), name="results-json"),
]
