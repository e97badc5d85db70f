"""Embedding-based metrics on the shared engine (:mod:`nlgmetrics.embed`): BERTScore (greedy matching), MoverScore
(optimal transport), and BERTScore's baseline rescaling."""

#: Pairs embedded and scored per step by BERTScore and MoverScore: long streams run in bounded memory (embeddings of
#: one chunk at a time; the shared cache, under its byte budget, keeps what repeats).
PAIR_CHUNK = 1024
