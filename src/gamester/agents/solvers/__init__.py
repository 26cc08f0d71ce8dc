"""Exact solvers of one deal's remaining tricks, for the ``pimc`` agent (one module per game)."""
