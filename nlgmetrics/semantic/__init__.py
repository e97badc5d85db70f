"""Embedding-based metrics on the shared engine (:mod:`nlgmetrics.embed`): BERTScore (greedy matching), MoverScore
(optimal transport), and BERTScore's baseline rescaling."""
