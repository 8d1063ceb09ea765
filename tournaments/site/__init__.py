"""The side of the service that players and spectators see: the front page (``home``), accounts
and self-service (``accounts``), tournament pages, brackets and embeds (``events``), player
profiles and leagues (``people``), the live table's page (``tables``). Server-rendered, Russian
by default; reads through ``tournaments.selectors`` and the API's data builders, writes through
``tournaments.services``."""
