"""Public pages: the live table's page (``/tables/<id>/``), which fills itself over the table's
WebSocket (``games.consumers``)."""
