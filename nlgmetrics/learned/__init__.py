"""Learned metrics: regression models trained on human judgments (BLEURT, MetricX), loaded from their published
checkpoints (a local folder, or a hub id when online) and run on nlgmetrics' own model code."""
