"""Public pages: people."""
