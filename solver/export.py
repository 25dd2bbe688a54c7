"""Models as portable text: a self-contained Python function and a SQL ``CASE`` expression.

Both read the *raw* columns (original units), follow the same missing-value
semantics as ``solver.predicates.evaluate`` (a missing value makes a
threshold or equality false), and return the predicted label as text. Each
export ships test vectors: raw rows with the prediction the model makes.
"""

from __future__ import annotations

import json
import math
import pprint

import numpy as np

from solver import predicates
from solver.models import LEAF, RuleList

EXPORT_FORMATS = ("json", "python", "sql")
# Per format: media type and file extension.
MEDIA = {"json": ("application/json", "json"), "python": ("text/x-python", "py"), "sql": ("application/sql", "sql")}


def render(model, fmt, vectors=()):
    """Return ``(text, media type, extension)`` of ``model`` exported as ``fmt`` (one of ``EXPORT_FORMATS``).

    The one way to an export: the command line and the web's download both call it.
    """
    if fmt == "json":
        text = json.dumps(to_json(model, vectors), indent=1) + "\n"
    elif fmt == "python":
        text = to_python(model, vectors)
    elif fmt == "sql":
        text = to_sql(model) + "\n"
    else:
        raise ValueError(f"unknown export format {fmt!r}; use one of {', '.join(EXPORT_FORMATS)}")
    return text, *MEDIA[fmt]


MODEL_SCHEMA = "corelsweb.model"
MODEL_SCHEMA_VERSION = 1


def to_json(model, vectors=()):
    """Return the model's JSON export: the model arrays and predicates plus test vectors."""
    return {
        "schema": MODEL_SCHEMA,
        "version": MODEL_SCHEMA_VERSION,
        "model": model.to_dict(),
        "test_vectors": list(vectors),
    }


# ---------------------------------------------------------------- Python


_PY_HELPERS = """
_MISSING = {"", "na", "n/a", "nan", "?", "null", "none", "-"}
_TRUE = {"1", "1.0", "true", "yes", "y", "t"}


def _missing(v):
    if v is None:
        return True
    if isinstance(v, float):
        return math.isnan(v)
    return isinstance(v, str) and v.strip().lower() in _MISSING


def _number(v):
    if _missing(v):
        return None
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(x) else x


def _text(v):
    if _missing(v):
        return None
    if isinstance(v, float):
        return str(int(v)) if v == int(v) and abs(v) < 1e15 else "%.6g" % v
    return str(v).strip()


def _le(v, t):
    x = _number(v)
    return x is not None and x <= t


def _eq(v, value):
    return _text(v) == value


def _is_one(v):
    x = _number(v)
    if x is not None:
        return x == 1.0
    return not _missing(v) and str(v).strip().lower() in _TRUE
"""


def python_condition(p):
    """Return a Python boolean expression of predicate ``p`` over ``row``."""
    kind = p["kind"]
    if kind == "not":
        return f"(not {python_condition(p['term'])})"
    if kind == "and":
        return "(" + " and ".join(python_condition(t) for t in p["terms"]) + ")"
    col = f"row.get({p['column']!r})"
    if kind == "threshold":
        return f"_le({col}, {float(p['threshold'])!r})"
    if kind == "equals":
        return f"_eq({col}, {p['value']!r})"
    if kind == "binary":
        return f"_is_one({col})"
    if kind == "missing":
        return f"_missing({col})"
    if kind == "ordinal":
        upto = p["order"][: p["order"].index(p["value"]) + 1]
        return f"(_text({col}) in {tuple(sorted(upto))!r})"
    if kind == "other":
        return f"(_text({col}) not in {(None, *sorted(p['kept']))!r})"
    raise ValueError(f"unknown predicate kind {kind!r}")


def _python_tree(model, i, indent):
    pad = "    " * indent
    if model.feature[i] == LEAF:
        return f"{pad}return {model.classes[model.prediction[i]]!r}\n"
    p = model.features[model.feature[i]]
    return (
        f"{pad}if {python_condition(p)}:  # {predicates.text(p)}\n"
        + _python_tree(model, model.right[i], indent + 1)
        + f"{pad}else:\n"
        + _python_tree(model, model.left[i], indent + 1)
    )


def _python_rules(model):
    out = []
    for k, j in enumerate(model.antecedents):
        p = model.features[j]
        out.append(
            f"    if {python_condition(p)}:  # {predicates.text(p)}\n"
            f"        return {model.classes[model.predictions[k]]!r}\n"
        )
    out.append(f"    return {model.classes[model.default]!r}\n")
    return "".join(out)


def to_python(model, vectors=None, name="predict"):
    """Return the source of a self-contained module with ``predict(row) -> label``.

    ``row`` maps raw column names to values (numbers or text as read from a
    CSV). With ``vectors`` the module also holds ``TEST_VECTORS`` and
    ``self_test()``, which raises ``AssertionError`` on any mismatch.
    """
    body = _python_rules(model) if isinstance(model, RuleList) else _python_tree(model, 0, 1)
    columns = sorted({c for p in _used_predicates(model) for c in predicates.columns_used(p)})
    src = [
        '"""A model exported by corelsweb: predict(row) maps raw column values to a label."""\n\n',
        "import math\n",
        _PY_HELPERS,
        f"\nCOLUMNS = {columns!r}\n\n\n",
        f"def {name}(row):\n",
        '    """Return the predicted label of one row (a dict of raw column values)."""\n',
        body,
    ]
    if vectors is not None:
        src += [
            f"\n\nTEST_VECTORS = {pprint.pformat(list(vectors), width=110)}\n\n\n",
            "def self_test():\n",
            '    """Raise AssertionError unless every test vector gets its expected label."""\n',
            "    for case in TEST_VECTORS:\n",
            f"        got = {name}(case['row'])\n",
            "        assert got == case['expected'], (case, got)\n",
            "    return len(TEST_VECTORS)\n",
        ]
    return "".join(src)


# ---------------------------------------------------------------- SQL


def sql_identifier(name):
    return '"' + str(name).replace('"', '""') + '"'


def sql_literal(value):
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        x = float(value)
        if not math.isfinite(x):
            return "NULL"
        return repr(int(x)) if x == int(x) and abs(x) < 1e15 else repr(x)
    return "'" + str(value).replace("'", "''") + "'"


def sql_condition(p):
    """Return a SQL boolean expression of ``p`` that is never NULL."""
    kind = p["kind"]
    if kind == "not":
        return f"(NOT {sql_condition(p['term'])})"
    if kind == "and":
        return "(" + " AND ".join(sql_condition(t) for t in p["terms"]) + ")"
    col = sql_identifier(p["column"])
    if kind == "threshold":
        return f"COALESCE({col} <= {sql_literal(p['threshold'])}, FALSE)"
    if kind == "equals":
        return f"COALESCE(CAST({col} AS TEXT) = {sql_literal(p['value'])}, FALSE)"
    if kind == "binary":
        return f"COALESCE({col} = 1, FALSE)"
    if kind == "missing":
        return f"({col} IS NULL)"
    if kind == "ordinal":
        upto = p["order"][: p["order"].index(p["value"]) + 1]
        return f"COALESCE(CAST({col} AS TEXT) IN ({', '.join(map(sql_literal, upto))}), FALSE)"
    if kind == "other":
        kept = ", ".join(map(sql_literal, p["kept"]))
        return f"({col} IS NOT NULL AND CAST({col} AS TEXT) NOT IN ({kept}))"
    raise ValueError(f"unknown predicate kind {kind!r}")


def _sql_tree(model, i, indent):
    pad = "  " * indent
    if model.feature[i] == LEAF:
        return sql_literal(model.classes[model.prediction[i]])
    p = model.features[model.feature[i]]
    return (
        f"CASE WHEN {sql_condition(p)}\n{pad}  THEN {_sql_tree(model, model.right[i], indent + 1)}\n"
        f"{pad}  ELSE {_sql_tree(model, model.left[i], indent + 1)} END"
    )


def to_sql(model):
    """Return a SQL ``CASE`` expression over the raw columns giving the predicted label.

    Numeric columns are compared as numbers; text columns as text. Works in
    SQLite and PostgreSQL (booleans via ``COALESCE(..., FALSE)``).
    """
    if isinstance(model, RuleList):
        whens = "".join(
            f"  WHEN {sql_condition(model.features[j])} THEN {sql_literal(model.classes[model.predictions[k]])}\n"
            for k, j in enumerate(model.antecedents)
        )
        return f"CASE\n{whens}  ELSE {sql_literal(model.classes[model.default])}\nEND"
    return _sql_tree(model, 0, 0)


# ---------------------------------------------------------------- test vectors


def _used_predicates(model):
    if isinstance(model, RuleList):
        return [model.features[j] for j in model.antecedents]
    return [model.features[j] for j in sorted(set(model.feature[model.feature != LEAF].tolist()))]


def test_vectors(model, table, limit=50):
    """Return raw rows (only the columns the model reads) with the model's predictions, to check exports by.

    One row for every leaf (or rule) that some row reaches, the first such row of each, then the first
    other rows up to ``limit`` in all. Only the model's own splits are evaluated on the table.
    """
    source = table.columns if hasattr(table, "columns") else table
    columns = sorted({c for p in _used_predicates(model) for c in predicates.columns_used(p)})
    position = model.apply(source)
    outputs = model.outputs[position]
    _, first = np.unique(position, return_index=True)
    others = np.setdiff1d(np.arange(min(len(position), limit + len(first))), first)
    picked = np.concatenate([np.sort(first), others[: max(0, limit - len(first))]])
    return [
        {"row": {c: _json_value(source[c][i]) for c in columns}, "expected": model.classes[outputs[i]]}
        for i in picked.tolist()
    ]


def _json_value(v):
    if v is None:
        return None
    if isinstance(v, (float, np.floating)):
        return None if math.isnan(v) else float(v)
    if isinstance(v, (np.integer,)):
        return int(v)
    return str(v)
