"""Thin adapters that put the core metrics into other frameworks; no algorithm lives here."""
