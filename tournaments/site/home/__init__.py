"""Public pages: the front page (public tournaments, running ones first, and the newest league
seasons)."""
