"""One column at a time: parsing text cells, and a bounded-memory summary of a column.

``parse_cells`` turns a chunk of CSV cells into numbers or text (each
distinct cell is parsed once). ``ColumnSummary`` takes chunk after chunk and
keeps only what the dataset page needs: missing count, a value histogram
(capped), text value counts (capped), min and max, and a fixed-size random
sample of the numbers once the histogram is full. Its memory does not grow
with the number of rows.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from solver.data import thresholds
from solver.data.table import MISSING_TOKENS

SAMPLE_SIZE = 10_000
HIST_STORE = 1_000
COUNTS_STORE = 200
QUANTILE_KS = (2, 4, 8, 16, 32, 64)
MISSING_LIST = sorted(MISSING_TOKENS)


def parse_key(raw):
    """Return ``(kind, value)`` of one text cell: ``missing``, ``num`` (a finite float) or ``text`` (stripped)."""
    s = raw.strip()
    if s.lower() in MISSING_TOKENS:
        return "missing", None
    try:
        x = float(s)
    except ValueError:
        return "text", s
    if math.isnan(x):
        return "missing", None  # '-nan' and friends, as numpy's parser reads them
    return ("num", x) if math.isfinite(x) else ("text", s)


def fast_numbers(cells, max_chars=64):
    """Return the float64 array of a chunk of cells when every present cell is a finite number, else None.

    The same answer as ``parse_key`` cell by cell, but converted by numpy in
    one call (missing tokens become NaN).
    """
    try:
        values = np.array(cells, dtype=np.float64)
    except ValueError:
        if max(map(len, cells)) > max_chars:
            return None
        text = np.array(cells)
        missing = np.isin(np.char.lower(np.char.strip(text)), MISSING_LIST)
        if not missing.any():
            return None
        text[missing] = "nan"
        try:
            values = text.astype(np.float64)
        except ValueError:
            return None
    return None if np.isinf(values).any() else values


def arrow_numbers(cells):
    """Return ``fast_numbers`` of a pyarrow string array, computed by pyarrow, or None.

    None also when pyarrow's parser refuses a cell that Python's ``float`` might take (``1_000``): the
    caller then parses the distinct cells one by one (``arrow_parse``), so the typing rules stay Python's.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    try:  # every cell a plain number (no spaces, no missing tokens): one cast
        values = pc.cast(cells, pa.float64())
    except pa.ArrowInvalid:
        trimmed = pc.utf8_trim_whitespace(cells)
        missing = pc.is_in(pc.utf8_lower(trimmed), value_set=pa.array(MISSING_LIST))
        try:
            values = pc.cast(pc.if_else(missing, pa.scalar(None, pa.string()), trimmed), pa.float64())
        except pa.ArrowInvalid:
            return None
    values = values.to_numpy(zero_copy_only=False)
    return None if np.isinf(values).any() else np.array(values, dtype=np.float64)


def arrow_parse(cells):
    """Return ``(distinct, codes, counts, parsed, numeric)`` of a pyarrow string array.

    ``distinct`` are its distinct raw cells, ``codes`` (array of int64, shape (n,)) the index of every
    cell into them; ``counts``, ``parsed`` and ``numeric`` as ``parse_cells`` returns them.
    """
    import pyarrow.compute as pc

    encoded = pc.dictionary_encode(cells)
    distinct = encoded.dictionary.to_pylist()
    codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    counts = Counter(dict(zip(distinct, np.bincount(codes, minlength=len(distinct)).tolist())))
    parsed = {raw: parse_key(raw) for raw in distinct}
    numeric = all(kind != "text" for kind, _ in parsed.values())
    return distinct, codes, counts, parsed, numeric


def _arrow_counts(cells):
    """Return pyarrow's value counts of a string array (a struct array of values and counts, computed in C)."""
    import pyarrow.compute as pc

    return pc.value_counts(cells)


def _arrow_count_items(counts):
    """Yield ``(raw cell, rows)`` of ``_arrow_counts``."""
    return zip(counts.field("values").to_pylist(), counts.field("counts").to_pylist())


def coded_numbers(distinct, codes, parsed):
    """Return the float64 array of coded numeric cells (NaN where missing)."""
    values = np.array([math.nan if parsed[raw][1] is None else parsed[raw][1] for raw in distinct], dtype=np.float64)
    return values[codes] if len(values) else np.full(len(codes), math.nan)


def coded_texts(distinct, codes, parsed, canonical):
    """Return the object array of coded cells as text (None where missing); see ``texts_of``."""
    lookup = np.empty(len(distinct), dtype=object)
    lookup[:] = [
        None if parsed[raw][0] == "missing" else canonical.setdefault(raw.strip(), raw.strip()) for raw in distinct
    ]
    return lookup[codes]


def parse_cells(cells):
    """Parse a chunk of raw text cells.

    Returns
    -------
    counts : Counter of str to int
        Rows per distinct raw cell.
    parsed : dict of str to tuple
        ``parse_key`` of every distinct raw cell.
    numeric : bool
        True when every present cell is a number.
    """
    counts = Counter(cells)
    parsed = {raw: parse_key(raw) for raw in counts}
    numeric = all(kind != "text" for kind, _ in parsed.values())
    return counts, parsed, numeric


def numbers_of(cells, parsed):
    """Return the float64 array of a numeric chunk (NaN where missing)."""
    lookup = {raw: (math.nan if v is None else v) for raw, (_, v) in parsed.items()}
    return np.fromiter(map(lookup.__getitem__, cells), dtype=np.float64, count=len(cells))


def texts_of(cells, parsed, canonical):
    """Return the object array of a chunk as text (None where missing).

    ``canonical`` maps each text to one shared str object, so that repeated
    categories of a long column share their memory.
    """
    lookup = {}
    for raw, (kind, v) in parsed.items():
        text = None if kind == "missing" else (raw.strip() if kind == "num" else v)
        lookup[raw] = None if text is None else canonical.setdefault(text, text)
    out = np.empty(len(cells), dtype=object)
    out[:] = list(map(lookup.__getitem__, cells))
    return out


class ColumnSummary:
    """What the dataset page knows about one column, built chunk by chunk in bounded memory.

    Parameters
    ----------
    name : str
    cap : int
        Most distinct numbers kept in the histogram.
    text_cap : int
        Most distinct texts counted one by one.
    seed : int
        Seed of the random sample kept once the histogram is full.
    """

    def __init__(self, name, cap, text_cap, seed=0):
        self.name = name
        self.cap = cap
        self.text_cap = text_cap
        self.n_rows = 0
        self.missing = 0
        self.numeric = True
        self.hist = (np.empty(0), np.empty(0, dtype=np.int64))
        self.hist_full = False
        self.hist_distinct = 0
        self.counter = True
        self.last = None
        self.low, self.high = math.inf, -math.inf
        self.integer = True
        self.sample = np.empty(0)
        self.sample_keys = np.empty(0)
        self.rng = np.random.default_rng(seed)
        self.texts = Counter()
        self.texts_full = False
        self.pending = []  # raw cell counts of numeric chunks, turned into texts only if a later chunk holds text
        self.other_rows = 0

    def add_raw(self, cells):
        """Take a chunk of raw CSV cells."""
        values = fast_numbers(cells) if self.numeric else None
        if values is not None:
            self._add_fast(lambda: Counter(cells), values)
            return
        counts, parsed, numeric = parse_cells(cells)
        self._add_parsed(len(cells), counts, parsed, numeric, lambda: numbers_of(cells, parsed))

    def add_arrow(self, cells):
        """Take a chunk of raw CSV cells as a pyarrow string array (as ``add_raw``, parsed by pyarrow)."""
        values = arrow_numbers(cells) if self.numeric else None
        if values is not None:
            self._add_fast(lambda: _arrow_counts(cells), values)
            return
        distinct, codes, counts, parsed, numeric = arrow_parse(cells)
        self._add_parsed(len(cells), counts, parsed, numeric, lambda: coded_numbers(distinct, codes, parsed))

    def _add_parsed(self, n, counts, parsed, numeric, chunk_values):
        self._flush_pending()
        self.n_rows += n
        texts = Counter()
        for raw, c in counts.items():
            kind, v = parsed[raw]
            if kind == "missing":
                self.missing += c
            else:
                texts[raw.strip() if kind == "num" else v] += c
        self._add_texts(texts)
        if self.numeric and not numeric:
            self._stop_numbers()
        if self.numeric:
            by_value = Counter()
            for raw, c in counts.items():
                if parsed[raw][0] == "num":
                    by_value[parsed[raw][1]] += c
            values = np.fromiter(by_value.keys(), dtype=np.float64, count=len(by_value))
            rows = np.fromiter(by_value.values(), dtype=np.int64, count=len(by_value))
            self.counter = False  # a chunk with missing cells is no row counter
            self._add_numbers(values, rows, chunk_values)

    def _add_fast(self, cell_counts, values):
        self.n_rows += len(values)
        missing = np.isnan(values)
        self.missing += int(missing.sum())
        if not self.texts_full and len(self.hist[0]) <= COUNTS_STORE:
            # While the column has few values, keep their raw cells' counts too, in case a later chunk holds text.
            self.pending.append(cell_counts())
        elif not self.texts_full:
            self.texts, self.texts_full, self.pending = Counter(), True, []
        uniq, counts = thresholds.histogram(values)
        self._track_counter(values)
        self._add_numbers(uniq, counts, lambda: values)

    def _track_counter(self, values):
        # A row counter: consecutive integers in file order, with no gap between chunks.
        if not self.counter or not len(values):
            return
        steps_of_one = bool(np.all(np.diff(values) == 1))
        follows = self.last is None or values[0] == self.last + 1
        self.counter = steps_of_one and follows and values[0] == np.round(values[0])
        self.last = values[-1]

    def add_numbers(self, values):
        """Take a chunk of typed numbers (float64, NaN = missing)."""
        self.n_rows += len(values)
        self.missing += int(np.isnan(values).sum())
        uniq, counts = thresholds.histogram(values)
        self._track_counter(values)
        self._add_numbers(uniq, counts, lambda: values)

    def add_texts(self, values):
        """Take a chunk of typed text (str or None = missing)."""
        self._flush_pending()
        self.n_rows += len(values)
        texts = Counter()
        for v, c in Counter(values).items():
            s = None if v is None else v.strip()
            if s is None or s.lower() in MISSING_TOKENS:
                self.missing += c
            else:
                texts[s] += c
        self._add_texts(texts)
        self._stop_numbers()

    def _flush_pending(self):
        """Count the raw texts of the numeric chunks kept so far (``pending``)."""
        for counts in self.pending:
            texts = Counter()
            for raw, c in counts.items() if isinstance(counts, dict) else _arrow_count_items(counts):
                s = raw.strip()
                if s.lower() not in MISSING_TOKENS:
                    texts[s] += c
            self._add_texts(texts)
        self.pending = []

    def _stop_numbers(self):
        self._flush_pending()
        self.numeric = False
        self.hist = (np.empty(0), np.empty(0, dtype=np.int64))
        self.sample = self.sample_keys = np.empty(0)

    def _add_texts(self, texts):
        if self.texts_full:
            known = (
                [t for t in self.texts if t in texts]
                if len(self.texts) < len(texts)
                else [t for t in texts if t in self.texts]
            )
            for text in known:
                self.texts[text] += texts[text]
            self.other_rows += sum(texts.values()) - sum(texts[t] for t in known)
            return
        self.texts.update(texts)
        if len(self.texts) > self.text_cap:
            # Keep the most frequent values so far; later new values are counted together.
            kept = dict(self.texts.most_common(self.text_cap))
            self.other_rows += sum(self.texts.values()) - sum(kept.values())
            self.texts, self.texts_full = Counter(kept), True

    def _add_numbers(self, values, rows, chunk_values):
        if len(values) == 0:
            return
        self.low, self.high = min(self.low, float(values.min())), max(self.high, float(values.max()))
        self.integer = self.integer and bool(np.all(values == np.round(values)))
        if self.hist_full:
            self._add_sample(chunk_values())
            return
        merged = thresholds.merge_histograms(*self.hist, values, rows)
        if len(merged[0]) <= self.cap:
            self.hist = merged
            return
        # The histogram is full: from now on a random sample of the rows stands in for it.
        self.hist_full = True
        self.hist_distinct = len(merged[0])
        self.hist = (np.empty(0), np.empty(0, dtype=np.int64))
        self._add_sample(np.repeat(*merged))

    def _add_sample(self, values):
        # Bottom-k sampling: every row gets a random key; the SAMPLE_SIZE smallest keys stay.
        values = values[~np.isnan(values)]
        keys = self.rng.random(len(values))
        self.sample = np.concatenate([self.sample, values])
        self.sample_keys = np.concatenate([self.sample_keys, keys])
        if len(self.sample) > SAMPLE_SIZE:
            keep = np.argpartition(self.sample_keys, SAMPLE_SIZE)[:SAMPLE_SIZE]
            self.sample, self.sample_keys = self.sample[keep], self.sample_keys[keep]

    @property
    def distinct(self):
        """Return the number of distinct present values (a lower bound when ``more`` is True)."""
        if self.numeric:
            return self.hist_distinct if self.hist_full else len(self.hist[0])
        return len(self.texts)

    @property
    def more(self):
        """Return True when the column has more distinct values than the summary counted."""
        return self.hist_full if self.numeric else self.texts_full
