"""Learned metrics: regression models trained on human judgments (COMET, BLEURT, MetricX), loaded from their
published checkpoints (a local folder, or a hub id when online) and run on nlgmetrics' own model code."""

from nlgmetrics.extras import require_extra

require_extra("learned", "nlgmetrics.learned")  # a MissingExtraError, not ModuleNotFoundError

