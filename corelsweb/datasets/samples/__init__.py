"""Sample datasets the app offers, shipped inside the project (see README.md)."""

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Sample:
    key: str
    name: str
    description: str
    source: str
    filename: str = ""
    roles: dict = field(default_factory=dict)

    def read_bytes(self):
        if self.filename:
            return (HERE / self.filename).read_bytes()
        return GENERATORS[self.key]()


def _breast_cancer_csv():
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([*data.feature_names, "diagnosis"])
    names = data.target_names
    for row, target in zip(data.data, data.target):
        writer.writerow([*(f"{v:g}" for v in row), names[target]])
    return out.getvalue().encode()


GENERATORS = {"breast-cancer": _breast_cancer_csv}

SAMPLES = {
    s.key: s
    for s in [
        Sample(
            "monk1",
            "MONK's problem 1",
            "124 robots, 11 binary features; a known rule defines the class.",
            "UCI MONK's Problems via ubc-systopia/gosdt-guesses (CC BY 4.0)",
            "monk1.csv",
            {"label": "class_1"},
        ),
        Sample(
            "tic-tac-toe",
            "Tic-tac-toe endgames",
            "958 final boards, 18 binary features; does x win?",
            "UCI Tic-Tac-Toe Endgame via ubc-systopia/gosdt-guesses (CC BY 4.0)",
            "tic-tac-toe.csv",
            {"label": "target"},
        ),
        Sample(
            "car-evaluation",
            "Car evaluation",
            "1,728 cars, 15 binary features; is the car acceptable?",
            "UCI Car Evaluation via ubc-systopia/gosdt-guesses (CC BY 4.0)",
            "car-evaluation.csv",
            {"label": "class_1"},
        ),
        Sample(
            "hypothyroid",
            "Hypothyroid (imbalanced)",
            "3,247 patients, 88 binary features, 8.5 % positive.",
            "UCI Thyroid Disease via AlgTUDelft/pystreed (CC BY 4.0)",
            "hypothyroid.csv",
            {"label": "label"},
        ),
        Sample(
            "breast-cancer",
            "Breast cancer (continuous)",
            "569 tumours, 30 continuous measurements; malignant or benign.",
            "UCI Breast Cancer Wisconsin via scikit-learn (BSD-3-Clause)",
            "",
            {"label": "diagnosis"},
        ),
        Sample(
            "veterans",
            "Veterans' lung cancer (survival)",
            "137 patients, 14 binary features, survival time in days and death indicator.",
            "Kalbfleisch & Prentice via ruizhang1996/optimal-sparse-survival-trees-public (BSD-3-Clause)",
            "veterans-surv.csv",
            {"time": "time", "event": "event"},
        ),
    ]
}
