"""mt-metrics-eval's data-folder layout (one test set, e.g. ``wmt24/``, read for one language pair) as
:class:`~nlgmetrics.agreement.records.Judgments`, the way its ``EvalSet`` and ``GetCorrelations`` read it.

The layout (mt-metrics-eval's README, "File organization and naming convention"):

- ``documents/{pair}.docs``: ``DOMAIN DOCNAME`` per segment (documents are contiguous blocks of segments);
- ``sources/{pair}.txt``, ``references/{pair}.{REF}.txt``, ``system-outputs/{pair}/{SYSTEM}.txt``: a line per
  segment (``[No translation supplied]`` marks a missing one); a system named like a reference is a human
  translation;
- ``human-scores/{pair}.{GOLD}.{LEVEL}.score`` and ``metric-scores/{pair}/{METRIC}-{REFS}.{LEVEL}.score`` with
  ``LEVEL`` one of ``seg``, ``doc``, ``domain``, ``sys``: lines ``SYSTEM SCORE`` (a block per system: one score per
  segment, document in ``.docs`` order, or one per system), ``DOMAIN SYSTEM SCORE`` at domain level; ``None``
  marks an unscored segment in a human file (never in a metric file). ``REFS`` is ``src`` (no reference), ``all`` or
  reference names joined by ``.``.

Scores at each level are read from that level's file, as mt-metrics-eval does (it aggregates nothing itself; its
system-, domain- and document-level human scores are files of the data release). ``level="seg"`` with a
``domain`` keeps that domain's segments, ``level="doc"`` its documents, ``level="sys"`` reads the domain-level file
(mt-metrics-eval's ``GetCorrelations``: system level within a domain is the domain level). In WMT24's MQM sets a
segment is a paragraph, so the segment level is the paragraph level there.

Which systems and metrics (``GetCorrelations``): the systems with at least one human score, less the standard
reference (``reference``) and, unless ``include_human``, the other human translations; the metrics whose references
are within the standard reference (``-src`` metrics always). Systems come in sorted order (mt-metrics-eval iterates
a Python set, whose order changes with ``PYTHONHASHSEED``; permutation draws and SPA's tie handling follow the order).

The reader rule (:mod:`nlgmetrics.agreement.records`) holds; besides, every error names ``file:line``:

- a line with the wrong number of fields, a system without an output file, a score file with the wrong number of
  scores for a system, an unknown domain, a non-contiguous document, a metric score that is not a finite number
  (``None`` included: mt-metrics-eval refuses it; it also fills a metric's missing system with zeros when not
  strict, which is an error here);
- MQM scores are negative penalties (0: no error; a gold name with an ``mqm`` part): a positive score is an error
  (penalties written with the wrong sign would reverse every correlation); ESA scores (an ``esa`` part) lie in
  [0, 100].
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from nlgmetrics.agreement.records import Judgments, _number, _read_lines, human_score
from nlgmetrics.errors import InputError

LEVELS = ("seg", "doc", "domain", "sys")
NO_TRANSLATION = "[No translation supplied]"


def _scale(gold: str) -> str | None:
    """``mqm`` or ``esa`` when a part of the gold name (``mqm.merged``, ``round2.mqm``, ``esa``) says so."""
    parts = {part.lower() for part in gold.split(".")}
    return "mqm" if "mqm" in parts else "esa" if "esa" in parts else None


def _check_scale(value: float | None, scale: str | None, where: str) -> float | None:
    if value is None or scale is None:
        return value
    if scale == "mqm" and value > 0:
        raise InputError(f"{where}: MQM score {value:g} is positive; mt-metrics-eval's MQM scores are negative "
                         "penalties (0 = no error, e.g. -5 for a major error): negate the penalties.")
    if scale == "esa" and not 0 <= value <= 100:
        raise InputError(f"{where}: ESA score {value:g} is outside 0-100.")
    return value


def read_documents(folder: str | Path, pair: str) -> tuple[list[str], list[str]]:
    """``documents/{pair}.docs``: the domain and the document of every segment. Documents must be contiguous."""
    path = Path(folder) / "documents" / f"{pair}.docs"
    domains, docs, seen = [], [], set()
    for number, line in enumerate(_read_lines(path), 1):
        parts = line.split()
        if len(parts) != 2:
            raise InputError(f"{path}:{number}: expected 'DOMAIN DOCNAME', got {line!r}.")
        if parts[1] in seen and docs[-1] != parts[1]:
            raise InputError(f"{path}:{number}: document {parts[1]!r} is not one contiguous block of segments.")
        seen.add(parts[1])
        domains.append(parts[0])
        docs.append(parts[1])
    if not docs:
        raise InputError(f"{path} has no segments.")
    return domains, docs


def read_score_file(path: str | Path, units: list[str] | int, human: bool, scale: str | None = None
                    ) -> dict[str, list[float | None]]:
    """A ``.score`` file: {system: [score per unit]}. ``units``: the number of scores per system (segments,
    documents, 1), or the ordered domain names of a domain-level file (lines ``DOMAIN SYSTEM SCORE``). Human scores
    follow the reader rule (None when missing) and ``scale``; metric scores must be finite numbers."""
    path = Path(path)
    domains = units if isinstance(units, list) else None
    index = {d: k for k, d in enumerate(domains or [])}
    scores: dict[str, list[float | None]] = {}
    for number, line in enumerate(_read_lines(path), 1):
        where, parts = f"{path}:{number}", line.split()
        if not parts:
            continue
        if len(parts) != (3 if domains else 2):
            raise InputError(f"{where}: expected '{'DOMAIN ' if domains else ''}SYSTEM SCORE', got {line!r}.")
        value = (_check_scale(human_score(parts[-1], where), scale, where) if human
                 else _number(parts[-1], f"{where}: metric score"))
        if domains:
            if parts[0] not in index:
                raise InputError(f"{where}: unknown domain {parts[0]!r}; documents/ has {', '.join(domains)}.")
            row = scores.setdefault(parts[1], [None] * len(domains))
            if row[index[parts[0]]] is not None:
                raise InputError(f"{where}: system {parts[1]!r} has a second score for domain {parts[0]!r}.")
            row[index[parts[0]]] = value
        else:
            scores.setdefault(parts[0], []).append(value)
    if not scores:
        raise InputError(f"{path} is empty: a score file has a line 'SYSTEM SCORE' per system and unit.")
    expected = len(domains) if domains else units
    for system, values in scores.items():
        if len(values) != expected:
            raise InputError(f"{path}: system {system!r} has {len(values)} scores where {expected} are expected "
                             "(one per unit of the level, in order).")
    return scores


def _names(folder: Path, pattern: str, cut: str) -> list[str]:
    return sorted(p.name[len(cut[0]) : len(p.name) - len(cut[1])] for p in folder.glob(pattern)) if folder.is_dir() \
        else []


def read_mtme_data(folder: str | Path, pair: str, gold: str = "mqm", level: str = "seg", domain: str | None = None,
                   reference: str | None = None, include_human: bool = False,
                   metrics: Mapping[str, str | Path] | None = None) -> Judgments:
    """Human scores ``gold`` (and metric scores: every ``metric-scores/{pair}/*.{level}.score`` whose references
    are within ``reference``, or the files in ``metrics``) of one language pair of an mt-metrics-eval test-set
    folder at ``level`` (``seg``, ``doc``, ``domain``, ``sys``), optionally within one ``domain`` (see the module
    docstring). ``reference``: the standard reference (default: the only one in ``references/``). At segment level
    the outputs and the reference are read as texts, so metrics can be scored by name."""
    folder = Path(folder)
    if not pair:
        raise InputError("reading an mt-metrics-eval folder needs the language pair (--mtme-pair en-de).")
    if level not in LEVELS:
        raise InputError(f"level must be one of {', '.join(LEVELS)} (mt-metrics-eval's names), got {level!r}.")
    file_level = "domain" if level == "sys" and domain is not None else level
    human_file = folder / "human-scores" / f"{pair}.{gold}.{file_level}.score"
    if not human_file.is_file():
        found = sorted(p.name for p in (folder / "human-scores").glob(f"{pair}.*.score"))
        raise InputError(f"{human_file} does not exist; human score files for {pair}: {', '.join(found) or 'none'}.")
    documents = folder / "documents" / f"{pair}.docs"
    seg_domains, seg_docs = read_documents(folder, pair) if documents.is_file() else (None, None)
    if seg_domains is None and (file_level in ("doc", "domain") or domain is not None):
        raise InputError(f"{documents} does not exist: documents and domains need it.")
    doc_names = list(dict.fromkeys(seg_docs)) if seg_docs else []
    doc_domains = [seg_domains[seg_docs.index(d)] for d in doc_names] if seg_docs else []
    domain_names = sorted(set(seg_domains)) if seg_domains else []  # mt-metrics-eval's canonical order
    if domain is not None and domain not in domain_names:
        raise InputError(f"unknown domain {domain!r}; {documents} has {', '.join(domain_names)}.")
    human = _read_level(human_file, file_level, seg_domains, doc_names, domain_names, True, _scale(gold))
    n_units = len(next(iter(human.values())))
    if file_level == "seg" and seg_domains is not None and n_units != len(seg_domains):
        raise InputError(f"{human_file}: {n_units} scores per system but {documents} has {len(seg_domains)} segments.")
    keep = list(range(n_units))
    if domain is not None:
        unit_domains = {"seg": seg_domains, "doc": doc_domains, "domain": domain_names}[file_level]
        keep = [k for k in keep if unit_domains[k] == domain]
    units = {"seg": [str(k) for k in range(n_units)], "doc": doc_names, "domain": domain_names,
             "sys": ["sys"]}[file_level]

    outputs_dir = folder / "system-outputs" / pair
    outputs = _names(outputs_dir, "*.txt", ("", ".txt"))
    refs = _names(folder / "references", f"{pair}.*.txt", (f"{pair}.", ".txt"))
    if reference is None and len(refs) > 1:
        raise InputError(f"{folder / 'references'} has references {', '.join(refs)} for {pair}: name the standard "
                         "one (reference=..., --mtme-ref).")
    if reference is not None and refs and reference not in refs:
        raise InputError(f"unknown reference {reference!r}; {folder / 'references'} has {', '.join(refs)}.")
    reference = reference or (refs[0] if refs else None)
    for system in human:
        if outputs and system not in outputs:
            raise InputError(f"{human_file}: system {system!r} has no output file in {outputs_dir}.")
    excluded = {reference} | (set() if include_human else set(refs))
    systems = sorted(s for s, v in human.items() if s not in excluded and any(x is not None for x in v))
    if not systems:
        raise InputError(f"{human_file}: no system (other than references) has a human score.")

    if metrics is None:
        metrics = {}
        for file in sorted((folder / "metric-scores" / pair).glob(f"*.{file_level}.score")):
            name = file.name[: -len(f".{file_level}.score")]
            base, dash, used = name.rpartition("-")
            if not dash:
                raise InputError(f"{file}: metric files are named METRIC-REFS.{file_level}.score (REFS: src, all or "
                                 "reference names joined by '.').")
            if used in ("src", "all") or reference is None or set(used.split(".")) <= {reference}:
                metrics[name] = file
    metric_scores = {name: _read_level(Path(file), file_level, seg_domains, doc_names, domain_names, False, None)
                     for name, file in metrics.items()}
    for name, scores in metric_scores.items():
        for system in systems:
            if system not in scores:
                raise InputError(f"metric {name!r} ({metrics[name]}) has no scores for system {system!r}.")
            if len(scores[system]) != n_units:
                raise InputError(f"metric {name!r} ({metrics[name]}) has {len(scores[system])} scores for "
                                 f"{system!r} but the human scores have {n_units}.")

    hypotheses = references = None
    if file_level == "seg" and outputs and reference is not None:
        texts = {s: _texts(outputs_dir / f"{s}.txt") for s in systems}
        ref_lines = _texts(folder / "references" / f"{pair}.{reference}.txt")
        hypotheses = [texts[s][k] for s in systems for k in keep]
        references = [[ref_lines[k]] if ref_lines[k] is not None else [] for _ in systems for k in keep]
    where = [f"{human_file}: system {s!r} {file_level} {units[k]}" for s in systems for k in keep]
    return Judgments.from_records(
        [s for s in systems for _ in keep], [units[k] for _ in systems for k in keep],
        [human[s][k] for s in systems for k in keep],
        {name: [scores[s][k] for s in systems for k in keep] for name, scores in metric_scores.items()},
        hypotheses, references, where)


def read_mtme_folder(folder: str | Path, pair: str, rater: str = "mqm",
                     metrics: Mapping[str, str | Path] | None = None) -> Judgments:
    """The segment scores of a test-set folder: :func:`read_mtme_data` with ``gold=rater`` at ``level="seg"``."""
    return read_mtme_data(folder, pair, rater, metrics=metrics)


def _read_level(path: Path, level: str, seg_domains: list[str] | None, doc_names: list[str],
                domain_names: list[str], human: bool, scale: str | None) -> dict[str, list[float | None]]:
    if level == "domain":
        return read_score_file(path, domain_names, human, scale)
    if level == "seg" and seg_domains is None:  # no documents/: the first system's count sets the length
        lines = [line.split() for line in _read_lines(path) if line.split()]
        first = lines[0][0] if lines and lines[0] else None
        return read_score_file(path, sum(1 for parts in lines if parts[0] == first), human, scale)
    count = {"seg": len(seg_domains or []), "doc": len(doc_names), "sys": 1}[level]
    return read_score_file(path, count, human, scale)


def _texts(path: Path) -> list[str | None]:
    if not path.is_file():
        raise InputError(f"{path} does not exist.")
    return [None if line.rstrip() == NO_TRANSLATION else line for line in _read_lines(path)]


__all__ = ["LEVELS", "read_documents", "read_mtme_data", "read_mtme_folder", "read_score_file"]
