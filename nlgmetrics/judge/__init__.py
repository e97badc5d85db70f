"""LLM-as-judge: rubric scores (G-Eval probability-weighted or parsed) and pairwise verdicts from a local
``transformers`` model or any OpenAI-compatible server, with a SQLite judgment cache (see :mod:`.core`)."""

from nlgmetrics.extras import require_extra

require_extra("judge", "nlgmetrics.judge")  # a MissingExtraError, not ModuleNotFoundError


from nlgmetrics.judge.backends import Answer, JudgeBackend, Request, TransformersBackend
from nlgmetrics.judge.cache import JudgmentCache
from nlgmetrics.judge.core import compute_llm_judge, get_backend
from nlgmetrics.judge.errors import JudgeCacheError, JudgeError, JudgeServerError
from nlgmetrics.judge.openai_backend import OpenAIBackend
from nlgmetrics.judge.scale import Scale
from nlgmetrics.judge.templates import BUILTIN, Template

__all__ = ["Answer", "BUILTIN", "JudgeBackend", "JudgeCacheError", "JudgeError", "JudgeServerError", "JudgmentCache",
           "OpenAIBackend", "Request", "Scale", "Template", "TransformersBackend", "compute_llm_judge", "get_backend"]
