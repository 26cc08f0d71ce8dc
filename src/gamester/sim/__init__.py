"""Simulation: self-play records, benchmarks (and later tournaments, ratings and metrics)."""
