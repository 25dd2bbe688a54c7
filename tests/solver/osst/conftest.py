"""Shared data for the OSST tests: the survival samples and the spec's toy example."""

import numpy as np
import pytest

from conftest import shared_dataset
from solver.data import Roles, make_problem, read_file

SURVIVAL_SETS = ("veterans", "whas500", "gbsg2")

# Spec §7.3: y = [1, 2, 2, 3, 4, 5], c = [1, 1, 0, 1, 0, 1].
TOY_TIME = np.array([1, 2, 2, 3, 4, 5], dtype=np.float64)
TOY_EVENT = np.array([1, 1, 0, 1, 0, 1], dtype=bool)


def dataset_path(name):
    return shared_dataset(f"{name}-surv.csv")


def load_problem(name):
    """Return the survival problem of a shared ``*-surv.csv`` file (its features are already 0/1)."""
    return make_problem(read_file(dataset_path(name)), Roles(time="time", event="event"), "none")


@pytest.fixture(scope="session")
def survival_problems():
    return {name: load_problem(name) for name in SURVIVAL_SETS}
