"""``nlgmetrics agree``: how well metrics agree with human judgments (WMT's statistics, as mt-metrics-eval computes
them), with bootstrap intervals and significance clusters. One package, three files, one flow:

- :mod:`~nlgmetrics.agreement.records`: the input records. Every reader (WMT DA, mt-metrics-eval score files,
  CSV/TSV/JSONL tables, multi-annotator JSONL) goes through one reader rule into a :class:`Judgments`;
  :mod:`~nlgmetrics.agreement.mtme_data` reads mt-metrics-eval's data folders (MQM/ESA, levels, domains) with it.
- :mod:`~nlgmetrics.agreement.statistics`: the statistics on ``(n_systems, n_items)`` matrices: correlations,
  pairwise accuracy, tie calibration, pairwise-difference Pearson, soft pairwise accuracy, the permutation test,
  Williams' test, bootstrap intervals (drawn in chunks).
- :mod:`~nlgmetrics.agreement.run`: :func:`agree` (scores metrics by name, runs the statistics per level),
  :func:`merge`, :func:`report` and :func:`plot`.

``from nlgmetrics import agree`` is :func:`nlgmetrics.agreement.agree`.
"""

from nlgmetrics.agreement.mtme_data import read_mtme_data, read_mtme_folder
from nlgmetrics.agreement.records import (FORMATS, Judgments, read_annotations, read_mtme, read_mtme_scores,
                                          read_table, read_wmt_da)
from nlgmetrics.agreement.run import (LEVELS, REPORT_FORMATS, agree, check_plot_path, merge, metric_scores, plot,
                                      report)
from nlgmetrics.agreement.statistics import (AVERAGES, DARR_THRESHOLD, STATISTICS, Correlation, PermutationParams,
                                             assign_ranks, bootstrap_interval, correlation, permutation_test,
                                             significance_clusters, spa_p_values, system_scores, williams_test)

__all__ = [
    "AVERAGES", "Correlation", "DARR_THRESHOLD", "FORMATS", "Judgments", "LEVELS", "PermutationParams",
    "REPORT_FORMATS", "STATISTICS", "agree", "assign_ranks", "bootstrap_interval", "check_plot_path", "correlation",
    "merge", "metric_scores", "permutation_test", "plot", "read_annotations", "read_mtme", "read_mtme_data",
    "read_mtme_folder", "read_mtme_scores", "read_table", "read_wmt_da", "report", "significance_clusters",
    "spa_p_values", "system_scores", "williams_test",
]
