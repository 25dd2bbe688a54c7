"""The column roles: one vocabulary for the data layer, the registry, the problem, the command line and the web.

A role is a part a raw column plays besides being a feature. ``Role.field`` is the ``Problem`` attribute it
becomes; ``Role.words`` names it in sentences ("needs a survival time column"); ``Role.help`` explains it on
forms and in ``--help``. ``missing`` is the one check of which roles an algorithm lacks.
"""

from __future__ import annotations

from typing import NamedTuple


class Role(NamedTuple):
    name: str
    field: str
    words: str
    help: str


ROLES = (
    Role("label", "y", "a label column", "The class to predict."),
    Role("weight", "sample_weight", "a weight column", "Non-negative row weights."),
    Role("time", "time", "a survival time column", "Survival time (survival trees)."),
    Role(
        "event",
        "event",
        "an event indicator column",
        "1 = event observed, 0 = censored (another coding, such as R's 1/2: set the event value).",
    ),
    Role("group", "group", "a protected group column", "Protected group, two values (fairness constraints)."),
    Role("treatment", "treatment", "a treatment column", "Treatment given (policy trees)."),
    Role("outcome", "outcome", "an outcome column", "Observed outcome (policy trees)."),
)
BY_NAME = {r.name: r for r in ROLES}
ROLE_NAMES = tuple(r.name for r in ROLES)
ROLE_FIELDS = tuple(r.field for r in ROLES)
# Requirements an algorithm can state besides column roles.
EXTRA_WORDS = {"feature_cost": "feature costs"}


def words(name):
    """Return the plain words of a role (or of an extra requirement such as feature costs)."""
    return BY_NAME[name].words if name in BY_NAME else EXTRA_WORDS.get(name, name)


def missing(algorithm, config, have):
    """Return the names of the roles ``algorithm`` needs under ``config`` that are not in ``have``."""
    return [r for r in algorithm.required_roles(config) if r not in have]


def missing_sentence(algorithm, config, have, where="choose one on the dataset page"):
    """Return one sentence saying which roles are missing (None when none is)."""
    lacking = missing(algorithm, config, have)
    if not lacking:
        return None
    return f"{algorithm.title} needs {' and '.join(words(r) for r in lacking)}; {where}."
