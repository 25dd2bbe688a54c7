"""Every algorithm with its parameter schema: the one source of truth.

The web form, the command line, the estimators and validation are generated
from these entries, so a parameter has one name, type, range, default and
help text everywhere.

An algorithm package declares its entry in ``solver/<name>/params.py`` as
``ALGORITHM = Algorithm(...)``; that module must stay light (no kernel
compilation), because the web process imports it to draw forms. The search
itself lives in ``Algorithm.search_module`` and is imported only to solve.
"""

from __future__ import annotations

import importlib
import math
from pathlib import Path
from dataclasses import dataclass, field
from typing import Any, Callable

# Display order; any other package with a ``params`` module comes after these.
DISPLAY_ORDER = ("corels", "gosdt", "rashomon", "osdt", "streed", "osst", "cart")


TEXT_MAX = 200  # characters of a ``text`` parameter


IMBALANCED_SHARE = 0.2  # a two-class label whose smaller class holds less than this share of the rows


def imbalanced(class_counts):
    """Return True for two classes whose smaller one holds less than ``IMBALANCED_SHARE`` of the rows."""
    counts = [float(c) for c in class_counts or ()]
    return len(counts) == 2 and sum(counts) > 0 and min(counts) / sum(counts) < IMBALANCED_SHARE


class ParameterError(ValueError):
    """A parameter value is invalid; the message is one plain sentence for users."""


@dataclass(frozen=True)
class Param:
    """One parameter of an algorithm.

    ``kind`` is one of ``int``, ``float``, ``bool``, ``choice``, ``text`` (a short string, e.g.
    a value of a data column; whether it fits the data is checked where the data is known). ``group``
    sorts parameters in forms: ``main`` first, then ``objective``, then
    ``bounds`` (the pruning switches, which never change the optimum) and
    ``search``. ``visible_when`` maps another parameter's name to the values
    for which this one matters (forms hide it otherwise).
    """

    name: str
    kind: str
    default: Any
    help: str
    label: str = ""
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    choices: tuple = ()
    optional: bool = False
    group: str = "main"
    visible_when: dict = field(default_factory=dict)
    # Left empty (None), the value is chosen from the data when the fit starts (``Algorithm.resolve``); these
    # words say how, on forms and in the result.
    from_data: str = ""
    # The default when the label's minority class is under ``IMBALANCED_SHARE`` of the rows (a choice that values
    # the minority class, where accuracy's optimum is often "predict the majority"); None: ``default`` always.
    imbalanced_default: Any = None

    @property
    def title(self):
        return self.label or self.name.replace("_", " ").capitalize()

    def clean(self, value):
        """Return ``value`` converted to this parameter's type, or raise ``ParameterError``.

        ``None`` or an empty string means "no value": allowed for optional
        parameters (e.g. no depth limit), refused otherwise.
        """
        if value is None or (isinstance(value, str) and value.strip() == ""):
            if self.optional:
                return None
            raise ParameterError(f"{self.name} needs a value.")
        converters = {"int": _to_int, "float": _to_float, "bool": _to_bool, "choice": str, "text": _to_text}
        try:
            out = converters[self.kind](value)
        except (TypeError, ValueError):
            raise ParameterError(f"{self.name} must be {_KIND_WORDS[self.kind]}, not {value!r}.") from None
        if self.kind == "choice" and out not in self.choices:
            options = ", ".join(self.choices)
            raise ParameterError(f"{self.name} must be one of {options}, not {out!r}.")
        if self.kind in ("int", "float"):
            self._check_range(out)
        return out

    def _check_range(self, x):
        if self.minimum is not None:
            if self.exclusive_minimum and not x > self.minimum:
                raise ParameterError(f"{self.name} must be greater than {self.minimum:g}, not {x!r}.")
            if not self.exclusive_minimum and x < self.minimum:
                raise ParameterError(f"{self.name} must be at least {self.minimum:g}, not {x!r}.")
        if self.maximum is not None and x > self.maximum:
            raise ParameterError(f"{self.name} must be at most {self.maximum:g}, not {x!r}.")

    def to_dict(self):
        return {
            "name": self.name,
            "kind": self.kind,
            "default": self.default,
            "help": self.help,
            "label": self.title,
            "minimum": self.minimum,
            "maximum": self.maximum,
            "choices": list(self.choices),
            "optional": self.optional,
            "group": self.group,
            "visible_when": {k: list(v) for k, v in self.visible_when.items()},
            "from_data": self.from_data,
            "imbalanced_default": self.imbalanced_default,
        }


_KIND_WORDS = {
    "int": "a whole number",
    "float": "a number",
    "bool": "true or false",
    "choice": "a choice",
    "text": f"a text of at most {TEXT_MAX} characters",
}


def _to_text(value):
    if not isinstance(value, str) or len(value.strip()) > TEXT_MAX:
        raise ValueError
    return value.strip()


def _to_int(value):
    if isinstance(value, bool):
        raise ValueError
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError
        return int(value)
    return int(str(value).strip())


def _to_float(value):
    if isinstance(value, bool):
        raise ValueError
    out = float(str(value).strip()) if isinstance(value, str) else float(value)
    if not math.isfinite(out):
        raise ValueError
    return out


def _to_bool(value):
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ValueError


@dataclass(frozen=True)
class Algorithm:
    """An algorithm: its name, what it needs, and its parameters.

    ``requires`` lists the column roles it needs, or is a function of the
    cleaned parameters returning them (a fairness task needs a group).
    ``search_module`` holds ``make_search(problem, config)`` and ``warmup()``.
    """

    name: str
    title: str
    summary: str
    search_module: str
    params: tuple
    requires: tuple | Callable = ("label",)
    model_type: str = "tree"
    proves_optimality: bool = True
    multiclass: bool | Callable = False
    check: Callable | None = None
    search_features: Callable | None = None  # (n binary features, config) -> features the search considers
    renamed: dict = field(default_factory=dict)  # former parameter name -> its name now (still accepted)
    # How raw columns become binary features when nobody says otherwise: the same on the web form, the command
    # line and the estimators (``solver.data.binarize.parse_method`` text).
    binarization: str = "exact"
    # (problem, config) -> {name: (value, sentence)}: the values of the parameters left empty whose ``from_data``
    # says they come from the data.
    data_defaults: Callable | None = None

    def resolve(self, config, problem):
        """Return ``(config, chosen)``: ``config`` with every empty data-chosen parameter filled from ``problem``.

        ``chosen`` maps each filled name to a sentence saying how its value was chosen.
        """
        empty = [p.name for p in self.params if p.from_data and config.get(p.name) is None]
        if not empty or self.data_defaults is None:
            return config, {}
        values = self.data_defaults(problem, config)
        chosen = {name: values[name] for name in empty if name in values}
        return {**config, **{name: value for name, (value, _) in chosen.items()}}, {
            name: sentence for name, (_, sentence) in chosen.items()
        }

    def defaults_for(self, class_counts=None):
        """Return every parameter's default for a label with these class counts (its balance may change some)."""
        skewed = imbalanced(class_counts)
        return {
            p.name: p.imbalanced_default if skewed and p.imbalanced_default is not None else p.default
            for p in self.params
        }

    def binarization_for(self, chosen=None):
        """Return the binarization a fit uses: ``chosen`` when given, else this algorithm's default."""
        return chosen or self.binarization

    def param(self, name):
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def clean(self, params=None):
        """Return a complete, typed parameter dict or raise ``ParameterError``.

        Unknown names are refused (a typo must not silently fall back to a
        default); missing names take their defaults.
        """
        params = {self.renamed.get(k, k): v for k, v in dict(params or {}).items()}
        known = {p.name for p in self.params}
        unknown = sorted(set(params) - known)
        if unknown:
            raise ParameterError(
                f"{self.name} has no parameter {unknown[0]!r}; its parameters are {', '.join(sorted(known))}."
            )
        config = {p.name: p.clean(params[p.name]) if p.name in params else p.default for p in self.params}
        if self.check is not None:
            self.check(config)
        return config

    def searched_features(self, n_binary, config):
        """Return how many candidate splits (or antecedents) the search considers, before it runs."""
        return int(self.search_features(n_binary, config)) if self.search_features else n_binary

    def required_roles(self, config):
        return tuple(self.requires(config) if callable(self.requires) else self.requires)

    def allows_multiclass(self, config):
        return bool(self.multiclass(config) if callable(self.multiclass) else self.multiclass)

    def to_dict(self):
        return {
            "name": self.name,
            "title": self.title,
            "summary": self.summary,
            "model_type": self.model_type,
            "proves_optimality": self.proves_optimality,
            "params": [p.to_dict() for p in self.params],
        }


_registry: dict[str, Algorithm] | None = None


def algorithms():
    """Return ``{name: Algorithm}`` for every registered algorithm, in display order."""
    global _registry
    if _registry is None:
        found = {}
        for package in _algorithm_packages():
            algorithm = importlib.import_module(f"solver.{package}.params").ALGORITHM
            found[algorithm.name] = algorithm
        _registry = found
    return _registry


def _algorithm_packages():
    """Return the solver subpackages that declare an algorithm (have a ``params`` module)."""
    root = Path(__file__).resolve().parent
    packages = [p.name for p in root.iterdir() if (p / "params.py").exists() and (p / "__init__.py").exists()]
    rank = {name: i for i, name in enumerate(DISPLAY_ORDER)}
    return sorted(packages, key=lambda name: (rank.get(name, len(rank)), name))


def get(name):
    """Return the algorithm called ``name`` or raise ``ParameterError``."""
    found = algorithms()
    if name not in found:
        raise ParameterError(f"There is no algorithm called {name!r}; choose one of {', '.join(found)}.")
    return found[name]


def regularization_param(default=0.01, help_extra="", from_data=""):
    """Return the shared ``regularization`` (λ) parameter (``from_data``: chosen from the data when left empty)."""
    return Param(
        "regularization",
        "float",
        None if from_data else default,
        "λ: the cost of one leaf (or rule), in units of the objective. "
        + help_extra
        + (f" Empty: {from_data}" if from_data else ""),
        label="Regularization λ",
        minimum=0.0,
        maximum=1.0,
        optional=bool(from_data),
        from_data=from_data,
    )


def max_depth_param(default=None, optional=True, maximum=32):
    """Return the shared ``max_depth`` parameter (splits on the longest path; a stump has 1)."""
    return Param(
        "max_depth",
        "int",
        default,
        "Most splits on any root-to-leaf path (a stump has depth 1). Empty means no limit.",
        label="Max depth",
        minimum=1,
        maximum=maximum,
        optional=optional,
    )
