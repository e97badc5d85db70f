"""One embedding engine for the embedding metrics (BERTScore, MoverScore): load once, embed once, cache.

    from nlgmetrics.embed import get_encoder
    enc = get_encoder("sentence-transformers/all-MiniLM-L6-v2")          # device auto, float32
    [emb] = enc.embed(["a text"], layer=6)                                 # TokenEmbeddings(input_ids, embeddings)

See :mod:`nlgmetrics.embed.encoder` (semantics, long texts, devices) and :mod:`nlgmetrics.embed.cache`.
"""

from nlgmetrics.extras import require_extra

require_extra("embed", "nlgmetrics.embed", ("torch", "transformers"))  # a MissingExtraError, not ModuleNotFoundError


from nlgmetrics.embed.cache import EmbeddingCache, TokenEmbeddings, configure_cache, get_cache
from nlgmetrics.embed.encoder import Encoder, clear_encoders, forward_batch, get_encoder, pick_device
from nlgmetrics.embed.layers import default_layer, lang_to_model

__all__ = [
    "EmbeddingCache", "Encoder", "TokenEmbeddings", "clear_encoders", "configure_cache", "default_layer",
    "forward_batch", "get_cache", "get_encoder", "lang_to_model", "pick_device",
]
