"""Readers of human judgments (and metric scores) into :class:`Judgments`, the input of ``nlgmetrics agree``.

Formats:

- ``wmt-da``: WMT DA segment scores (``DA-seglevel.csv``: space-separated ``LP DATA SYSTEM SID HUMAN``; a SYSTEM
  ``a+b`` (identical outputs) counts as ``a``), one language pair; with ``texts``, the folder holding
  ``{DATA}-{src}{tgt}-ref.{tgt}`` and ``{lp}/{DATA}.{SYSTEM}.{lp}`` (lines HTML-unescaped), so metrics can be scored.
- ``mtme``: mt-metrics-eval's score files (``human-scores/{lp}.{rater}.seg.score``,
  ``metric-scores/{lp}/{metric}-{ref}.seg.score``): lines ``SYSTEM<TAB>SCORE`` (``None`` = missing), each system's
  segments in order; a test-set folder: :mod:`nlgmetrics.agreement.mtme_data`.
- ``table``: CSV, TSV or JSON Lines with named columns (human, system, item, metric score, hypothesis, reference).
- ``annotations``: JSON Lines with several annotators and quality dimensions per record (SummEval's layout:
  ``{"id", "model_id", "decoded", "references", "expert_annotations": [{"coherence": 2, ...}, ...]}``); the human
  score of a record is the mean over its annotators of one dimension.

The reader rule (every format and :meth:`Judgments.from_records` go through it; errors name the file and line):

- files are UTF-8; a byte-order mark is accepted;
- a record missing a required field (``system``, ``item``, the human score, a metric column) is an error with its
  line; a CSV/TSV row with fewer or more fields than the header is a malformed row (an error with its line);
- a human score is a finite number: empty, ``None``, ``NA``, ``nan``, ``null`` (JSON null or NaN) mark a missing
  judgment, whose record is dropped and counted (``Judgments.dropped``); anything else (text, JSON ``true``/
  ``false``, ``inf``) is an error; a judged record's metric score is a finite number too;
- a system or item key is text or an integer: null, an empty text, a boolean, a list or an object is an error with
  its line (never a system named "None");
- a reference is text or a non-empty list of texts (null, a number, a list holding either is an error with its
  line), and one item has one set of references: a record whose references differ from those an earlier record gave
  the same item is an error naming both lines; a judged record's hypothesis is text;
- a (system, item) given twice, or a metric score file that does not cover the human scores' systems and
  segments, is an error; a file without records is an error, and an empty file is named as empty.

Every error is an :class:`~nlgmetrics.errors.InputError` (a ``ValueError``).
"""

from __future__ import annotations

import csv
import html
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from nlgmetrics.errors import InputError

FORMATS = ("wmt-da", "mtme", "table", "annotations")


@dataclass
class Judgments:
    """Human scores of ``systems`` x ``items`` (NaN: not judged), optional metric scores of the same shape, and
    optional texts (``hypotheses[s][i]``, ``references[i]``: a list per item) for scoring metrics by name."""

    systems: list[str]
    items: list[str]
    human: np.ndarray
    metrics: dict[str, np.ndarray] = field(default_factory=dict)
    hypotheses: list[list[str | None]] | None = None
    references: list[list[str]] | None = None
    dropped: int = 0

    @classmethod
    def from_records(cls, systems: Sequence[str], items: Sequence[Any], human: Sequence[float | None],
                     metrics: Mapping[str, Sequence[float]] | None = None,
                     hypotheses: Sequence[str] | None = None,
                     references: Sequence[str | Sequence[str]] | None = None,
                     where: Sequence[str] | None = None) -> Judgments:
        """One record per judged (system, item): parallel lists. A None/NaN human score drops the record (counted);
        a human or metric score that is not a finite number (text, a bool, infinity) is an error naming the record
        (``where[k]``, e.g. ``file:line``; default ``record k+1``)."""
        n = len(human)
        if where is None:
            where = [f"record {k + 1}" for k in range(n)]
        columns = {"systems": systems, "items": items, **{f"metrics[{k!r}]": v for k, v in (metrics or {}).items()}}
        if hypotheses is not None:
            columns["hypotheses"] = hypotheses
        if references is not None:
            columns["references"] = references
        for name, values in columns.items():
            if len(values) != n:
                raise InputError(f"{name} has {len(values)} entries but human has {n}: give one per judgment.")
        for k in range(n):
            _check_key(systems[k], "system", where[k])
            _check_key(items[k], "item", where[k])
        system_names = list(dict.fromkeys(str(s) for s in systems))
        item_names = list(dict.fromkeys(str(i) for i in items))
        s_index = {s: k for k, s in enumerate(system_names)}
        i_index = {i: k for k, i in enumerate(item_names)}
        shape = (len(system_names), len(item_names))
        matrix = np.full(shape, np.nan)
        scores = {name: np.full(shape, np.nan) for name in metrics or {}}
        hyps = [[None] * shape[1] for _ in range(shape[0])] if hypotheses is not None else None
        refs: list[list[str]] | None = [[] for _ in range(shape[1])] if references is not None else None
        seen, dropped = set(), 0
        given_at: dict[int, str] = {}  # item -> where its references were first given
        for k in range(n):
            s, i = s_index[str(systems[k])], i_index[str(items[k])]
            if (s, i) in seen:
                raise InputError(f"{where[k]}: system {system_names[s]!r} item {item_names[i]!r} is given twice: "
                                 "give each (system, item) once (average repeated judgments first).")
            seen.add((s, i))
            if refs is not None:
                ref = _reference(references[k], where[k])
                if i in given_at and refs[i] != ref:
                    raise InputError(
                        f"{where[k]}: item {item_names[i]!r} has the reference(s) {ref!r:.80} here but "
                        f"{refs[i]!r:.80} at {given_at[i]}: one item has one set of references for every system; "
                        "fix the file, or give such rows different items.")
                refs[i], given_at[i] = ref, given_at.get(i, where[k])
            value = human_score(human[k], where[k])
            if value is None:
                dropped += 1
                continue
            matrix[s, i] = value
            for name in scores:
                scores[name][s, i] = _number(metrics[name][k], f"{where[k]}: metric {name!r}")
            if hyps is not None:
                if not isinstance(hypotheses[k], str):
                    raise InputError(f"{where[k]}: the hypothesis is {_kind(hypotheses[k])}, not text; give the "
                                     "system's output text (an empty output is '').")
                hyps[s][i] = hypotheses[k]
        return cls(system_names, item_names, matrix, scores, hyps, refs, dropped)


_MISSING = ("", "none", "na", "nan", "null")


def _kind(value: Any) -> str:
    return "null" if value is None else f"a {type(value).__name__} ({value!r:.40})"


def _check_key(value: Any, what: str, where: str) -> None:
    """A system or item key: text (not blank) or an integer; anything else is an error naming ``where``."""
    if isinstance(value, str) and value.strip():
        return
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return
    shown = "empty" if isinstance(value, str) else _kind(value)
    raise InputError(f"{where}: the {what} is {shown}; every record names its {what} with text or an integer.")


def _reference(value: Any, where: str) -> list[str]:
    """A record's references as a list of texts: text, or a non-empty list of texts; an error naming ``where``."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)) and value and all(isinstance(r, str) for r in value):
        return list(value)
    bad = next((r for r in value if not isinstance(r, str)), None) if isinstance(value, (list, tuple)) and value \
        else value
    shown = "an empty list" if isinstance(value, (list, tuple)) and not value else _kind(bad)
    raise InputError(f"{where}: the reference is {shown}, not text; give the reference text (or a list of them).")


def _number(value: Any, what: str) -> float:
    """A finite number (an int, a float or a numeric string); bools and infinity are refused."""
    if isinstance(value, (bool, np.bool_)):
        raise InputError(f"{what}: {value!r} is a boolean, not a score; give a number.")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{what}: {value!r} is not a number.") from None
    if not math.isfinite(number):
        raise InputError(f"{what}: {value!r} is not a finite number.")
    return number


def human_score(raw: Any, where: str) -> float | None:
    """The reader rule for one human score: a finite number, or None for a missing judgment (None, NaN, or the
    text empty/None/NA/nan/null); anything else (text, bool, infinity) is a ``ValueError`` naming ``where``."""
    if raw is None or (isinstance(raw, float) and math.isnan(raw)):
        return None
    if isinstance(raw, str) and raw.strip().lower() in _MISSING:
        return None
    return _number(raw, f"{where}: human score")


def _read_lines(path: Path) -> list[str]:
    """Lines without their ends (the last line counts whether or not a newline ends the file)."""
    with open(path, encoding="utf-8-sig") as handle:
        lines = handle.read().split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def read_wmt_da(path: str | Path, pair: str, texts: str | Path | None = None) -> Judgments:
    """One language pair of a WMT DA segment-score file (see the module docstring)."""
    path = Path(path)
    systems, items, human, where, data, pairs = [], [], [], [], set(), set()
    header, rows = _rows(path, " ")
    missing = {"LP", "SYSTEM", "SID", "HUMAN"} - set(header)
    if missing:
        raise InputError(f"{path}: not a WMT DA file (header LP DATA SYSTEM SID HUMAN); missing "
                         f"{', '.join(sorted(missing))}.")
    for line, row in rows:
        pairs.add(row["LP"])
        if row["LP"] != pair:
            continue
        systems.append(row["SYSTEM"].split("+")[0])
        items.append(row["SID"])
        human.append(row["HUMAN"])
        where.append(line)
        data.add(row.get("DATA") or "newstest2017")
    if not systems:
        raise InputError(f"{path} has no rows for {pair!r}; it has {', '.join(sorted(pairs))}.")
    hypotheses = references = None
    if texts is not None:
        folder, (src, tgt), prefix = Path(texts), pair.split("-"), sorted(data)[0]
        reference = [html.unescape(line) for line in _read_lines(folder / f"{prefix}-{src}{tgt}-ref.{tgt}")]
        outputs = {}
        for system in dict.fromkeys(systems):
            file = folder / pair / f"{prefix}.{system}.{pair}"
            if not file.is_file():
                raise InputError(f"no output of system {system!r} for {pair}: {file} is missing.")
            outputs[system] = [html.unescape(line) for line in _read_lines(file)]
        for sid in items:
            if not sid.isdigit() or not 1 <= int(sid) <= len(reference):
                raise InputError(f"SID {sid!r} is not a line number of the {len(reference)}-line reference.")
        hypotheses = [outputs[s][int(i) - 1] for s, i in zip(systems, items)]
        references = [reference[int(i) - 1] for i in items]
    return Judgments.from_records(systems, items, human, None, hypotheses, references, where)


def read_mtme_scores(path: str | Path, what: str = "score") -> dict[str, list[float | None]]:
    """An mt-metrics-eval score file: {system: [score per segment]} (None where missing; the reader rule)."""
    scores: dict[str, list[float | None]] = {}
    for number, line in enumerate(_read_lines(Path(path)), 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 2:
            raise InputError(f"{path}:{number}: expected 'SYSTEM<TAB>SCORE', got {line!r}.")
        value = human_score(parts[1], f"{path}:{number}")
        scores.setdefault(parts[0], []).append(value)
    if not scores:
        raise InputError(f"{path} is empty: an mt-metrics-eval {what} file (.seg.score) has a line "
                         "'SYSTEM<TAB>SCORE' per system and segment.")
    return scores


def read_mtme(human: str | Path, metrics: Mapping[str, str | Path] | None = None) -> Judgments:
    """Human and metric ``.seg.score`` files of mt-metrics-eval (systems without human scores are left out)."""
    gold = read_mtme_scores(human, "human score")
    lengths = {len(v) for v in gold.values()}
    if len(lengths) != 1:
        raise InputError(f"{human}: systems have different numbers of segments ({sorted(lengths)}).")
    systems, items, values = [], [], []
    for system, scores in gold.items():
        systems += [system] * len(scores)
        items += [str(i) for i in range(len(scores))]
        values += scores
    metric_columns = {}
    for name, file in (metrics or {}).items():
        scores = read_mtme_scores(file, f"metric score ({name})")
        column = []
        for system, human_scores in gold.items():
            if system not in scores:
                raise InputError(f"metric {name!r} ({file}) has no scores for system {system!r}.")
            if len(scores[system]) != len(human_scores):
                raise InputError(f"metric {name!r} ({file}) has {len(scores[system])} segments for {system!r} but "
                                 f"the human scores have {len(human_scores)}.")
            column += [math.nan if v is None else v for v in scores[system]]
        metric_columns[name] = column
    return Judgments.from_records(systems, items, values, metric_columns)


def _rows(path: Path, delimiter: str) -> tuple[list[str], Iterator[tuple[str, dict[str, str]]]]:
    """A delimited file's header and its rows as ``("file:line", {field: value})``; a row with fewer or more fields
    than the header is an error with its line (the reader rule)."""
    handle = open(path, encoding="utf-8-sig", newline="")
    reader = csv.DictReader(handle, delimiter=delimiter)
    header = list(reader.fieldnames or [])

    def rows() -> Iterator[tuple[str, dict[str, str]]]:
        with handle:
            for row in reader:
                where = f"{path}:{reader.line_num}"
                if None in row or None in row.values():
                    fields = len(header) + len(row.get(None) or []) - sum(v is None for v in row.values())
                    raise InputError(f"{where}: malformed row: {fields} fields where the header has "
                                     f"{len(header)} ({', '.join(header)}).")
                yield where, row

    return header, rows()


def _records(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """The records of a CSV, TSV or JSON Lines file as ``("file:line", record)`` pairs."""
    records: list[tuple[str, dict[str, Any]]] = []
    if path.suffix.lower() in (".jsonl", ".json"):
        for number, line in enumerate(_read_lines(path), 1):
            if line.strip():
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise InputError(f"{path}:{number}: not JSON ({exc.msg}).") from None
                if not isinstance(record, dict):
                    raise InputError(f"{path}:{number}: expected a JSON object with named fields, got "
                                     f"{type(record).__name__}.")
                records.append((f"{path}:{number}", record))
    else:
        records = list(_rows(path, "\t" if path.suffix.lower() == ".tsv" else ",")[1])
    if not records:
        raise InputError(f"{path} has no records.")
    return records


def _column(records: list[tuple[str, dict[str, Any]]], key: str, path: Path, flag: str) -> list[Any]:
    """Field ``key`` of every record; a file without it names ``flag`` (the option that chooses it), a record
    without it its line."""
    first = records[0][1]
    if key not in first:
        raise InputError(f"{path} has no column {key!r}; it has {', '.join(map(str, first))}. Name the column "
                         f"with {flag}.")
    for where, record in records:
        if key not in record:
            raise InputError(f"{where}: the record has no {key!r} field (every record needs one).")
    return [record[key] for _, record in records]


_FLAGS = {"human": "--human-column", "system": "--system-column", "item": "--item-column",
          "hypothesis": "--hypothesis-column", "reference": "--reference-column", "metric": "--columns"}


def read_table(path: str | Path, human: str = "human", system: str | None = "system", item: str | None = "item",
               metrics: Sequence[str] = (), hypothesis: str | None = None, reference: str | None = None) -> Judgments:
    """CSV/TSV/JSONL with one judged (system, item) per row. Without a ``system`` column every row is one system;
    without an ``item`` column the row number is the item. The texts (to score metrics by name) come from the
    ``hypothesis`` and ``reference`` columns; when not named, columns called ``hypothesis`` and ``reference`` are
    used if the file has them."""
    path = Path(path)
    records = _records(path)
    hypothesis = hypothesis or ("hypothesis" if "hypothesis" in records[0][1] else None)
    reference = reference or ("reference" if "reference" in records[0][1] else None)
    gold = _column(records, human, path, _FLAGS["human"])
    systems = _column(records, system, path, _FLAGS["system"]) if system else ["system"] * len(records)
    items = _column(records, item, path, _FLAGS["item"]) if item else list(range(len(records)))
    scores = {name: _column(records, name, path, _FLAGS["metric"]) for name in metrics}
    hyps = _column(records, hypothesis, path, _FLAGS["hypothesis"]) if hypothesis else None
    refs = _column(records, reference, path, _FLAGS["reference"]) if reference else None
    return Judgments.from_records(systems, items, gold, scores, hyps, refs, [w for w, _ in records])


def read_annotations(path: str | Path, dimension: str, annotations: str = "expert_annotations",
                     system: str = "model_id", item: str = "id", metrics: Sequence[str] = (),
                     hypothesis: str | None = "decoded", reference: str | None = "references") -> Judgments:
    """JSON Lines with a list of annotator dicts per record; the human score is their mean on ``dimension``
    (annotators without it are skipped; a record with none is dropped)."""
    path = Path(path)
    records = _records(path)
    gold = []
    for where, record in records:
        ratings = record.get(annotations)
        if not isinstance(ratings, list):
            raise InputError(f"{where}: {annotations!r} must be a list of annotator dicts.")
        values = [human_score(r.get(dimension), where) for r in ratings if isinstance(r, dict)]
        values = [v for v in values if v is not None]
        gold.append(float(np.mean(values)) if values else None)
    dims = sorted({key for _, r in records for a in r.get(annotations) or [] if isinstance(a, dict) for key in a})
    if dims and dimension not in dims:
        raise InputError(f"{path}: no annotator gives {dimension!r}; dimensions are {', '.join(dims)}.")
    first = records[0][1]
    hyps = _column(records, hypothesis, path, "hypothesis=") if hypothesis and hypothesis in first else None
    refs = _column(records, reference, path, "reference=") if reference and reference in first else None
    return Judgments.from_records(_column(records, system, path, "--system-column"),
                                  _column(records, item, path, "--item-column"), gold,
                                  {m: _column(records, m, path, _FLAGS["metric"]) for m in metrics}, hyps, refs,
                                  [w for w, _ in records])
