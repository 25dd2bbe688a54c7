"""Run forms generated from ``solver.registry``: one field per algorithm parameter."""

import json

from django import forms
from django.conf import settings
from django.core.validators import MaxValueValidator

from solver import registry
from solver.registry import ParameterError, imbalanced
from solver.data import Roles
from solver.regularization import regularization_for

GROUP_TITLES = {
    "main": "Parameters",
    "objective": "Objective",
    "search": "Search",
    "bounds": "Bounds (pruning switches: they change speed, never the optimum)",
}
EXPERT_GROUPS = {"bounds"}
# A new run holds out a stratified 20 % for testing, on tables with enough rows that 20 % says something.
DEFAULT_EVALUATION, DEFAULT_EVALUATION_MIN_ROWS = "holdout:0.2", 50


def algorithm_choices():
    return [(a.name, a) for a in registry.algorithms().values()]


def needed_columns(dataset):
    """Return the columns a test file must have for runs on ``dataset``: every feature and role column."""
    roles = Roles.from_dict(dataset.roles)
    return list(roles.role_columns()) + roles.feature_columns(dataset.column_names)


def missing_columns(dataset, other):
    """Return the columns of ``needed_columns(dataset)`` that the dataset ``other`` lacks."""
    have = set(other.column_names)
    return [c for c in needed_columns(dataset) if c not in have]


def test_datasets(dataset):
    """Return ``(usable, refused)``: the owner's other datasets that have every needed column, and the others."""
    usable, refused = [], []
    for other in dataset.owner.datasets.exclude(pk=dataset.pk).only("pk", "name", "columns")[:100]:
        (refused if missing_columns(dataset, other) else usable).append(other)
    return usable, refused


def evaluation_choices(dataset, every=False):
    """Return the test-data choices: none, holdouts, and the owner's datasets with the needed columns (or ``every``)."""
    choices = [
        ("", "none: fit on every row"),
        ("holdout:0.2", "hold out 20 % (stratified)"),
        ("holdout:0.3", "hold out 30 % (stratified)"),
    ]
    if dataset is not None:
        usable, refused = test_datasets(dataset)
        choices += [(f"test:{d.pk}", f"test file: {d.name}") for d in usable + (refused if every else [])]
    return choices


def field_for(param):
    """Return the Django form field of one registry ``Param``.

    A parameter that applies only for some values of others (``visible_when``) says so in a
    ``data-visible-when`` attribute; the form's script shows it only then (static/js/run_form.js).
    """
    field = _field_for(param)
    if param.visible_when:
        when = {f"id_p_{name}": list(values) for name, values in param.visible_when.items()}
        field.widget.attrs["data-visible-when"] = json.dumps(when)
    return field


def _field_for(param):
    common = {"label": param.title, "help_text": param.help, "required": False}
    if param.kind == "bool":
        return forms.BooleanField(initial=param.default, **common)
    if param.kind == "choice":
        return forms.ChoiceField(choices=[(c, c) for c in param.choices], initial=param.default, **common)
    if param.kind == "text":
        return forms.CharField(max_length=registry.TEXT_MAX, initial=param.default, strip=True, **common)
    number = {"min_value": param.minimum, "max_value": param.maximum, "initial": param.default}
    if param.kind == "int":
        field = forms.IntegerField(**number, **common)
    else:
        field = forms.FloatField(**number, **common)
    if param.from_data:
        field.widget.attrs["placeholder"] = "from the data"
    return field


class RunForm(forms.Form):
    """Parameters of one algorithm, plus the run's limits."""

    time_limit = forms.FloatField(
        min_value=0.1,
        label="Time limit (seconds)",
        help_text="The search stops here and returns its best model with a proved lower bound.",
    )
    node_limit = forms.IntegerField(min_value=1, required=False, label="Node limit", help_text="Empty = no limit.")
    memory_limit_mb = forms.IntegerField(min_value=16, label="Memory limit (MB)")

    evaluation = forms.ChoiceField(
        required=False,
        label="Test data",
        help_text="Rows the model is scored on but not fitted to; the same split for every run on this dataset.",
    )
    lambda_mode = forms.ChoiceField(
        required=False,
        label="Choose λ by",
        initial="lambda",
        choices=[
            ("lambda", "its value (below)"),
            ("max_leaves", "at most L leaves / rules"),
            ("min_rows", "at least k rows per leaf / rule"),
        ],
    )
    lambda_target = forms.IntegerField(required=False, min_value=1, label="L or k")
    run_name = forms.CharField(
        required=False, max_length=120, label="Name", help_text="Optional: a short name for lists and comparisons."
    )
    run_note = forms.CharField(
        required=False,
        max_length=2000,
        label="Note",
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Optional: why you ran it, what you expect.",
    )

    def __init__(self, algorithm, *args, dataset=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.algorithm = algorithm
        self.dataset = dataset
        self.note = ""
        # Every dataset validates (so that a refused one gets a plain sentence); only usable ones are offered.
        self.fields["evaluation"].choices = evaluation_choices(dataset, every=True)
        self.fields["evaluation"].widget.choices = evaluation_choices(dataset)
        if dataset is not None and dataset.n_rows >= DEFAULT_EVALUATION_MIN_ROWS:
            self.fields["evaluation"].initial = DEFAULT_EVALUATION
        if dataset is not None:
            refused = test_datasets(dataset)[1]
            if refused:
                names = ", ".join(d.name for d in refused[:5]) + (" …" if len(refused) > 5 else "")
                self.fields[
                    "evaluation"
                ].help_text += f" Not offered ({len(refused)}), because they lack columns this run needs: {names}."
        if not any(p.name == "regularization" for p in algorithm.params):
            del self.fields["lambda_mode"], self.fields["lambda_target"]
        self.fields["time_limit"].initial = settings.CORELSWEB_DEFAULT_TIME_LIMIT
        self.fields["time_limit"].max_value = settings.CORELSWEB_MAX_TIME_LIMIT
        self.fields["time_limit"].validators.append(MaxValueValidator(settings.CORELSWEB_MAX_TIME_LIMIT))
        self.fields["time_limit"].widget.attrs["max"] = settings.CORELSWEB_MAX_TIME_LIMIT
        most = settings.CORELSWEB_MAX_MEMORY_LIMIT_MB
        self.fields["memory_limit_mb"].initial = settings.CORELSWEB_DEFAULT_MEMORY_LIMIT_MB
        self.fields["memory_limit_mb"].validators.append(
            MaxValueValidator(most, f"A run may use at most {most:,} MB on this service's workers.")
        )
        self.fields["memory_limit_mb"].widget.attrs["max"] = most
        self.fields[
            "memory_limit_mb"
        ].help_text = (
            f"The solver stops here and returns its best model with a proved lower bound (at most {most:,} MB)."
        )
        for param in algorithm.params:
            self.fields[f"p_{param.name}"] = field_for(param)
        self.balance_note = self._follow_label_balance(dataset)

    def _follow_label_balance(self, dataset):
        """Default the parameters whose registry default depends on the label's balance; return a note or ""."""
        counts = (dataset.label_counts() or {}) if dataset is not None else {}
        if "label" not in self.algorithm.required_roles(self.algorithm.clean({})) or not imbalanced(counts.values()):
            return ""
        defaults = self.algorithm.defaults_for(counts.values())
        changed = [p for p in self.algorithm.params if defaults[p.name] != p.default]
        minority, rows = min(counts.items(), key=lambda kv: kv[1]), sum(counts.values())
        share = f"{minority[1] / rows:.1%} of the rows are {minority[0]!r}"
        for p in changed:
            self.fields[f"p_{p.name}"].initial = defaults[p.name]
        if changed:
            chosen = ", ".join(f"{p.title.lower()} {defaults[p.name].replace('_', ' ')}" for p in changed)
            return (
                f"The label is imbalanced ({share}), so this form starts from {chosen} instead of "
                f"{changed[0].default}: a model that predicts the majority class for every row scores well on "
                "accuracy and finds none of the minority rows."
            )
        return (
            f"The label is imbalanced ({share}). {self.algorithm.title} minimises misclassifications, whose optimum "
            "may be to predict the majority class for every row; GOSDT (balanced accuracy, F1) and STreeD (F1, "
            "misclassification costs) have objectives that value the minority class."
        )

    def param_groups(self):
        """Return ``[(title, [bound field, ...], expert, open), ...]`` in registry group order.

        The expert group (the theorem switches) is drawn folded, and open only when one of its switches is off
        or has an error, so that a changed switch is never hidden.
        """
        groups, changed = {}, set()
        for param in self.algorithm.params:
            if f"p_{param.name}" in self.fields:
                field = self[f"p_{param.name}"]
                groups.setdefault(param.group, []).append(field)
                if field.errors or (param.kind == "bool" and bool(field.value()) != bool(param.default)):
                    changed.add(param.group)
        return [
            (GROUP_TITLES.get(g, g.capitalize()), groups[g], g in EXPERT_GROUPS, g in changed)
            for g in GROUP_TITLES
            if g in groups
        ]

    def clean(self):
        data = super().clean()
        raw = {}
        for param in self.algorithm.params:
            if f"p_{param.name}" not in self.fields:
                continue
            value = data.get(f"p_{param.name}")
            if param.kind == "bool":
                raw[param.name] = bool(value)
            elif value not in (None, ""):
                raw[param.name] = value
            elif param.optional:
                raw[param.name] = ""
        if data.get("lambda_mode") in ("max_leaves", "min_rows"):
            raw["regularization"] = self._lambda_from_target(data, raw)
        try:
            data["params"] = self.algorithm.clean(raw)
        except ParameterError as e:
            raise forms.ValidationError(str(e)) from None
        return data

    def _lambda_from_target(self, data, raw):
        if not data.get("lambda_target"):
            raise forms.ValidationError("Give L (leaves) or k (rows) to convert into λ.")
        from corelsweb.datasets.services import features_preview
        from corelsweb.runs.objectives import dataset_loss0

        config = {p.name: raw.get(p.name, p.default) for p in self.algorithm.params}
        loss0 = dataset_loss0(self.dataset, self.algorithm.name, config, features_preview(self.dataset))
        if loss0 is None:
            raise forms.ValidationError(
                "The loss of a single leaf on this table is not known before the run (it is "
                "too large to read here); give λ as a number."
            )
        try:
            lam, self.note = regularization_for(data["lambda_mode"], data["lambda_target"], self.dataset.n_rows, loss0)
        except ValueError as e:
            raise forms.ValidationError(str(e)) from None
        return lam

    def clean_evaluation(self):
        value = self.cleaned_data.get("evaluation") or ""
        if value.startswith("test:") and self.dataset is not None:
            other = self.dataset.owner.datasets.filter(pk=value.split(":")[1]).first()
            missing = missing_columns(self.dataset, other) if other else ["(the dataset is gone)"]
            if missing:
                shown = ", ".join(missing[:5]) + (" …" if len(missing) > 5 else "")
                raise forms.ValidationError(f"The test file lacks columns this run needs: {shown}.")
        return value

    def notes(self):
        """Return the run's note: the user's, then how λ was chosen (when given as L leaves or k rows)."""
        return "\n".join(t for t in (self.cleaned_data.get("run_note", "").strip(), self.note) if t)

    def evaluation_setting(self):
        """Return the run's ``evaluation`` dict from the chosen test data."""
        value = self.cleaned_data.get("evaluation") or ""
        if value.startswith("holdout:"):
            return {"holdout": float(value.split(":")[1]), "seed": 0}
        if value.startswith("test:"):
            return {"test_dataset": int(value.split(":")[1])}
        return {}

    def limits(self):
        data = self.cleaned_data
        return {
            "time_limit": data["time_limit"],
            "node_limit": data.get("node_limit"),
            "memory_limit": data["memory_limit_mb"] * 2**20,
        }

    @classmethod
    def initial_from(cls, algorithm, params, limits, evaluation=None):
        """Return form initial data reproducing an earlier run."""
        initial = {f"p_{k}": v for k, v in params.items()}
        evaluation = evaluation or {}
        initial["evaluation"] = ""  # the earlier run's choice, even none, not the default for new runs
        if evaluation.get("holdout"):
            initial["evaluation"] = f"holdout:{evaluation['holdout']:g}"
        elif evaluation.get("test_dataset"):
            initial["evaluation"] = f"test:{evaluation['test_dataset']}"
        initial["time_limit"] = limits.get("time_limit")
        initial["node_limit"] = limits.get("node_limit")
        if limits.get("memory_limit"):
            initial["memory_limit_mb"] = limits["memory_limit"] // 2**20
        return initial


class PathForm(RunForm):
    """An algorithm's parameters (all but λ), a λ grid and the number of folds."""

    lambdas = forms.CharField(
        initial="0.002, 0.005, 0.01, 0.02, 0.05",
        label="λ grid",
        help_text="Comma-separated values of λ; each is fitted on every fold.",
    )
    folds = forms.IntegerField(min_value=2, max_value=10, initial=5, label="Folds")
    seed = forms.IntegerField(min_value=0, initial=0, label="Seed of the fold split")

    MAX_CELLS = 200

    def __init__(self, algorithm, *args, **kwargs):
        super().__init__(algorithm, *args, **kwargs)
        for name in ("evaluation", "lambda_mode", "lambda_target", "p_regularization", "run_name", "run_note"):
            self.fields.pop(name, None)
        self.fields["time_limit"].help_text = "Per cell (one λ on one fold)."

    def clean_lambdas(self):
        try:
            values = sorted({float(v) for v in self.cleaned_data["lambdas"].replace(";", ",").split(",") if v.strip()})
        except ValueError:
            raise forms.ValidationError("Write the λ values as numbers separated by commas.") from None
        if not values or any(not 0 <= v <= 1 for v in values):
            raise forms.ValidationError("Give at least one λ, each between 0 and 1.")
        return values

    def clean(self):
        data = super().clean()
        if data.get("lambdas") and data.get("folds") and len(data["lambdas"]) * data["folds"] > self.MAX_CELLS:
            raise forms.ValidationError(
                f"That is {len(data['lambdas']) * data['folds']} fits; at most {self.MAX_CELLS} per path."
            )
        return data
