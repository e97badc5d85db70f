"""Learned metrics (COMET) read from their published checkpoints."""
