"""Benchmarks: commands that print figures (``python3 dev.py bench`` runs them all)."""
