"""Invariance and determinism on 30 real WMT17 de-en pairs: per-example scores do not depend on input order, encoder
batch size or a warm cache; every random element (the BLEU, NIST and ROUGE bootstrap) is seeded; repeated runs of
each evaluate module give identical output."""

from __future__ import annotations

import html

import numpy as np
import pytest

from nlgmetrics.registry import get_metric
from nlgmetrics.resources import BUNDLED_ENCODER_ID, bundled_encoder_path

N = 30
TOL = 1e-6
PERMUTATION_SEED = 20170917
EMBEDDING = ("bertscore", "moverscore")
needs_encoder = pytest.mark.skipif(bundled_encoder_path() is None, reason="bundled MiniLM encoder not installed")

# the options that give each metric its per-example scores
PER_EXAMPLE = {
    "bleu": {"sentence_scores": True},
    "google_bleu": {"sentence_scores": True},
    "rouge": {"use_aggregator": False, "rouge_types": ["rouge1", "rouge2", "rougeL", "rougeLsum", "rougeW"]},
    "meteor": {"sentence_scores": True},
    "bertscore": {"model_type": BUNDLED_ENCODER_ID},
    "moverscore": {"model_type": BUNDLED_ENCODER_ID},
}
# corpus-level keys whose values must not depend on the order either
CORPUS_KEYS = {"bleu": ("bleu", "score", "counts", "totals"), "google_bleu": ("google_bleu",), "meteor": ("meteor",),
               "moverscore": ("moverscore",)}


@pytest.fixture(scope="module", autouse=True)
def _one_torch_thread():
    """One torch thread here: on a shared, loaded 2-core box two spin-waiting threads ran up to 20 times slower."""
    try:
        import torch
    except ImportError:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _param(name: str):
    return pytest.param(name, marks=needs_encoder) if name in EMBEDDING else name


@pytest.fixture(scope="module")
def pairs(wmt17_deen) -> tuple[list[str], list[list[str]]]:
    """30 predictions; every third one has a second reference (another system's output), so the number of
    references varies per example and the multi-reference paths are permuted too."""
    def text(x: str) -> str:
        return html.unescape(x)

    hyps = [text(x) for x in wmt17_deen["systems"]["online-F.0"][:N]]
    refs = [text(x) for x in wmt17_deen["references"][:N]]
    alts = [text(x) for x in wmt17_deen["systems"]["online-B.0"][:N]]
    references = [[ref, alt] if i % 3 == 0 else [ref] for i, (ref, alt) in enumerate(zip(refs, alts))]
    return hyps, references


@pytest.fixture(scope="module")
def permutation() -> np.ndarray:
    perm = np.random.default_rng(PERMUTATION_SEED).permutation(N)
    assert (perm != np.arange(N)).sum() > N // 2  # a real shuffle
    return perm


def _score(name: str, predictions, references, **options) -> dict:
    if name in EMBEDDING:
        from nlgmetrics.embed import get_cache

        get_cache().clear()  # each call encodes from scratch, with its own batches
    return get_metric(name)(predictions, references, **PER_EXAMPLE[name], **options)


def _per_example(result: dict) -> dict[str, np.ndarray]:
    """Every list in ``result`` with one value per example."""
    lists = {key: np.asarray(value, dtype=np.float64) for key, value in result.items()
             if isinstance(value, list) and len(value) == N}
    assert lists, f"no per-example scores in {sorted(result)}"
    return lists


def _assert_close(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> None:
    assert a.keys() == b.keys()
    for key, expected in a.items():
        assert np.all(np.isfinite(expected)), key
        np.testing.assert_allclose(b[key], expected, rtol=0, atol=TOL, err_msg=key)


# -- order --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", [_param(name) for name in PER_EXAMPLE])
def test_per_example_scores_do_not_depend_on_order(name, pairs, permutation):
    hyps, refs = pairs
    # a small encoder batch, so that the shuffle also changes which texts share a padded batch
    options = {"batch_size": 4} if name in EMBEDDING else {}
    straight = _score(name, hyps, refs, **options)
    shuffled = _score(name, [hyps[i] for i in permutation], [refs[i] for i in permutation], **options)

    unshuffled = {}
    for key, values in _per_example(shuffled).items():
        restored = np.empty_like(values)
        restored[permutation] = values  # shuffled position p holds example permutation[p]
        unshuffled[key] = restored
    _assert_close(_per_example(straight), unshuffled)
    for key in CORPUS_KEYS.get(name, ()):
        assert np.asarray(shuffled[key]) == pytest.approx(np.asarray(straight[key]), abs=TOL), key
    # the un-permutation is not the identity: the scores really differ between examples
    first = next(iter(_per_example(straight).values()))
    assert len(set(np.round(first, 6))) > N // 2


def test_nist_corpus_score_does_not_depend_on_order(pairs, permutation):
    from nlgmetrics.lexical.nist import compute_nist

    hyps, refs = pairs
    straight = compute_nist(hyps, refs)
    shuffled = compute_nist([hyps[i] for i in permutation], [refs[i] for i in permutation])
    assert straight["nist"] > 1.0
    for key in ("nist", "nist_mt", "precisions", "length_penalty", "translation_length", "reference_length"):
        assert np.asarray(shuffled[key]) == pytest.approx(np.asarray(straight[key]), abs=TOL), key


# -- batch size and cache -----------------------------------------------------------------------------------------
@needs_encoder
@pytest.mark.parametrize("name", EMBEDDING)
def test_embedding_scores_do_not_depend_on_batch_size(name, pairs):
    hyps, refs = pairs
    small = _score(name, hyps, refs, batch_size=2)
    large = _score(name, hyps, refs, batch_size=64)
    _assert_close(_per_example(large), _per_example(small))


@needs_encoder
@pytest.mark.parametrize("name", EMBEDDING)
def test_embedding_scores_do_not_depend_on_a_warm_cache(name, pairs):
    from nlgmetrics.embed import get_cache

    hyps, refs = pairs
    cold = _score(name, hyps, refs)  # clears the cache first
    cache = get_cache()
    assert cache.misses > 0 and cache.hits == 0 and len(cache) > 0
    warm = get_metric(name)(hyps, refs, **PER_EXAMPLE[name])
    assert cache.hits >= N  # every text came from the cache the second time
    _assert_close(_per_example(cold), _per_example(warm))


@pytest.mark.parametrize("name", ["rouge", "meteor"])
def test_lexical_scores_do_not_depend_on_warm_token_caches(name, pairs):
    from nlgmetrics.lexical import meteor
    from nlgmetrics.text import rouge_tokenize

    hyps, refs = pairs
    clear = {"rouge": rouge_tokenize.clear_caches, "meteor": meteor.clear_caches}[name]
    clear()
    cold = _score(name, hyps, refs, use_stemmer=True) if name == "rouge" else _score(name, hyps, refs)
    warm = _score(name, hyps, refs, use_stemmer=True) if name == "rouge" else _score(name, hyps, refs)
    _assert_close(_per_example(cold), _per_example(warm))


# -- seeded bootstrap ---------------------------------------------------------------------------------------------
BOOTSTRAP = {
    "bleu": ("score_mean", "score_ci", "score_low", "score_high"),
    "nist_mt": ("nist_mean", "nist_ci", "nist_low", "nist_high"),
    "google_bleu": ("google_bleu_mean", "google_bleu_ci", "google_bleu_low", "google_bleu_high"),
    "rouge": ("rouge1_low", "rouge1_mid", "rouge1_high", "rougeL_recall_low", "rougeL_recall_high"),
}


@pytest.mark.parametrize("name", BOOTSTRAP)
def test_bootstrap_is_seeded(name, pairs):
    hyps, refs = pairs
    compute = get_metric(name)
    first = compute(hyps, refs, n_bootstrap=200, seed=7)
    again = compute(hyps, refs, n_bootstrap=200, seed=7)
    other = compute(hyps, refs, n_bootstrap=200, seed=8)
    default = compute(hyps, refs, n_bootstrap=200)
    assert again == first  # bit for bit, every key
    assert default == compute(hyps, refs, n_bootstrap=200)  # the default seed is a fixed one, not None
    keys = BOOTSTRAP[name]
    assert all(key in first for key in keys)
    assert first[keys[0]] != other[keys[0]] and first[keys[-1]] != other[keys[-1]]
    # the point estimate does not depend on the seed
    point = {"bleu": "score", "nist_mt": "nist_mt", "google_bleu": "google_bleu", "rouge": "rouge1"}[name]
    assert other[point] == first[point]


# -- evaluate modules ---------------------------------------------------------------------------------------------
MODULE_OPTIONS = {
    "bleu": {"sentence_scores": True, "n_bootstrap": 100, "seed": 3},
    "sacrebleu": {"sentence_scores": True, "n_bootstrap": 100, "seed": 3},
    "google_bleu": {"sentence_scores": True, "n_bootstrap": 100, "seed": 3},
    "nist_mt": {"n_bootstrap": 100, "seed": 3},
    "rouge": {"use_stemmer": True, "n_bootstrap": 100, "seed": 3},
    "meteor": {"sentence_scores": True},
    "bertscore": {"model_type": BUNDLED_ENCODER_ID, "batch_size": 8},
    "moverscore": {"model_type": BUNDLED_ENCODER_ID, "batch_size": 8},
}


@pytest.mark.parametrize("name", [_param(name) for name in MODULE_OPTIONS])
def test_evaluate_module_repeated_runs_are_identical(name, pairs):
    import evaluate

    from nlgmetrics.embed import get_cache

    hyps, refs = pairs
    options = MODULE_OPTIONS[name]
    get_cache().clear()
    first = evaluate.load(f"./metrics/{name}").compute(predictions=hyps, references=refs, **options)
    module = evaluate.load(f"./metrics/{name}")  # a fresh instance, run twice (the second time on a warm cache)
    second = module.compute(predictions=hyps, references=refs, **options)
    module.add_batch(predictions=hyps, references=refs)
    third = module.compute(**options)
    assert first == second == third
    assert len(first) > 1
