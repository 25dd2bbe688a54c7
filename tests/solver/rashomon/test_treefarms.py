"""Same counts as treefarms 0.2.4 on the shared binary files (spec §7.3).

treefarms runs in a subprocess: its configuration is process-global and sticky (spec §1.3), and its
C++ code prints to the process's stdout. Its optimum for θ is not always proved (its verbose log then
says "Optimality Gap" > 0 and θ = 1.05 × an upper bound): monk2, monk3 and tic-tac-toe at depth 5 are
such cases. There we compare at treefarms' own θ, read from its log and recovered as the exact
objective of a tree ((mistakes, leaves) whose objective prints as treefarms' optimum).
"""

from __future__ import annotations

import re
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

from solver import api
from bench.harness import shared_dataset
from solver.problem import binary_problem

pytest.importorskip("treefarms")

SCRIPT = """
import json, sys, pandas as pd
from treefarms import TREEFARMS
name, depth = sys.argv[1], int(sys.argv[2])
df = pd.read_csv(name)
m = TREEFARMS({"regularization": 0.01, "rashomon_bound_multiplier": 0.05, "rashomon_bound_adder": 0,
               "rashomon_bound": 0, "depth_budget": depth, "verbose": True})
m.fit(df.iloc[:, :-1], df.iloc[:, -1])
print("COUNT", m.get_tree_count())
"""


def treefarms(name, depth_budget):
    """Return (count, optimum that treefarms used) of a treefarms run."""
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(shared_dataset(f"{name}.csv")), str(depth_budget)],
        capture_output=True,
        text=True,
        check=True,
        timeout=1800,
    ).stdout
    count = int(re.search(r"^COUNT (\d+)", out, re.M).group(1))
    optimum = float(re.search(r"Found Optimal Objective: ([0-9.e-]+)", out).group(1))
    return count, optimum


def load(name):
    d = np.loadtxt(shared_dataset(f"{name}.csv"), delimiter=",", skiprows=1, dtype=np.int64)
    return binary_problem(d[:, :-1], d[:, -1])


def exact_optimum(printed, n, lam=Fraction(1, 100)):
    """Return the objective m/n + λh nearest to a printed (6 significant digits) treefarms optimum."""
    best = min(
        (
            (abs(float(Fraction(m, n) + lam * h) - printed), Fraction(m, n) + lam * h)
            for m in range(n + 1)
            for h in range(1, 101)
        )
    )
    assert best[0] < 5e-6
    return best[1]


def check(name, depth_budget, quoted):
    count, printed = treefarms(name, depth_budget)
    assert count == quoted  # the count the issue quotes, reproduced here
    problem = load(name)
    max_depth = None if depth_budget == 0 else depth_budget - 1  # treefarms' depth counts the root as 1
    ours = api.solve(problem, "rashomon", {"regularization": 0.01, "epsilon": 0.05, "max_depth": max_depth})
    assert ours.status == "optimal"
    tf_optimum = exact_optimum(printed, problem.n_samples)
    if abs(float(tf_optimum) - ours.extras["optimum"]) < 1e-9:
        assert ours.extras["count"] == count
    else:  # treefarms' optimum is an unproved upper bound: compare at its θ
        assert float(tf_optimum) > ours.extras["optimum"]
        at_theirs = api.solve(
            problem,
            "rashomon",
            {"regularization": 0.01, "max_depth": max_depth, "objective_bound": float(tf_optimum * Fraction(105, 100))},
        )
        assert at_theirs.extras["count"] == count


def test_monk1():
    check("monk1", 0, 24)
    check("monk1", 5, 4)


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, depth_budget, quoted",
    [
        ("compas-osdt-binary", 0, 1431),
        ("compas-osdt-binary", 5, 1105),
        ("tic-tac-toe", 5, 541536),
        ("monk3", 0, 2208),
        ("monk2", 0, 77111244426308),
    ],
)
def test_shared_files(name, depth_budget, quoted):
    check(name, depth_budget, quoted)
