"""The scoreboard REST API, version 1 (``/api/v1/``): every public fact of an event, for venue
screens, stream overlays, club sites and apps.

- :mod:`~tournaments.api.contract`: the contract every view keeps and the schema declares
  (query parameters checked against the schema, statuses and their codes, the headers);
  :mod:`~tournaments.api.language`: English unless ``Accept-Language`` asks for Russian;
- :mod:`~tournaments.api.common`: what every endpoint shares: who may read a tournament (fail
  closed: a private one is a 404 to others), conditional GET (``ETag`` from the tournament's
  version counter, ``Last-Modified``, ``Cache-Control`` by how settled the data is), cursor
  pagination, the throttles, and the error shape in the schema;
- one module per part of the API (events, people, games, writes), each with its own
  ``urlpatterns``, and :mod:`~tournaments.api.urls` that mounts them with the schema and its
  docs pages.

Views are thin (HackSoft's "one view per operation"): they read through ``tournaments.selectors``
and write through ``tournaments.services``, with the console's permissions
(``tournaments.permissions``). Output serializers are read-only and named uniquely, so that the
OpenAPI schema has one component per shape.
"""
