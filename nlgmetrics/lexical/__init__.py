"""Lexical metrics: per-segment sufficient statistics, then one aggregate."""
