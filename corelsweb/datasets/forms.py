from django import forms
from django.conf import settings

from corelsweb.datasets.samples import SAMPLES
from corelsweb.datasets.uploads import size_words
from corelsweb.datasets.widgets import FastNumberInput, FastSelect, FastSelectMultiple, FastTextInput
from solver.data.roles import MAX_CATEGORIES, MIN_LEVEL_SHARE, event_values
from solver.data.table import DataError
from solver.roles import BY_NAME, ROLE_NAMES

BINARIZATION_CHOICES = [
    ("", "Each algorithm's default: exact thresholds (CORELS: 8 quantile thresholds per numeric column)"),
    ("exact", "Exact: a threshold at every midpoint (keeps optimality for the raw data)"),
    ("quantile:4", "Approximate: 4 quantile thresholds per numeric column"),
    ("quantile:8", "Approximate: 8 quantile thresholds per numeric column"),
    ("quantile:16", "Approximate: 16 quantile thresholds per numeric column"),
    ("quantile:32", "Approximate: 32 quantile thresholds per numeric column"),
    ("gbdt:40:1", "Approximate: thresholds of 40 boosted stumps (threshold guessing)"),
    ("gbdt:100:3", "Approximate: thresholds of 100 boosted depth-3 trees"),
    ("none", "None: every feature column is already 0/1"),
]

ROLE_FIELDS = ROLE_NAMES  # the one role vocabulary (solver.roles)
POLICY_CHOICES = [("feature", "own feature"), ("drop", "drop rows")]
ORDER_MAX_VALUES = 50


class UploadForm(forms.Form):
    file = forms.FileField(required=False)
    name = forms.CharField(max_length=200, required=False, help_text="Defaults to the file name.")
    keep_copy = forms.BooleanField(
        required=False,
        label="Keep a second copy",
        help_text="Only if you uploaded this very file before and want it twice (say, with other column roles).",
    )

    def __init__(self, *args, refused=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.refused = refused
        limit = size_words(settings.CORELSWEB_MAX_UPLOAD_BYTES)
        self.fields["file"].help_text = f"CSV, TSV or Parquet with a header row; at most {limit}."
        self.fields["file"].widget.attrs["data-max-bytes"] = settings.CORELSWEB_MAX_UPLOAD_BYTES

    def clean_file(self):
        if self.refused:
            raise forms.ValidationError(self.refused)
        uploaded = self.cleaned_data.get("file")
        if not uploaded:
            raise forms.ValidationError("Choose a file to upload.")
        return uploaded


class PredictForm(UploadForm):
    """A new raw table to apply a fitted model to."""

    name = None
    keep_copy = None
    id_column = forms.CharField(
        max_length=200,
        required=False,
        label="Identifier column",
        help_text="Optional: a column of the file copied into every prediction row.",
    )


class SampleForm(forms.Form):
    sample = forms.ChoiceField(choices=[(k, s.name) for k, s in SAMPLES.items()])


class RolesForm(forms.Form):
    """Choose which column plays which role, how each column is treated, and how to binarize."""

    label = forms.ChoiceField(required=False, widget=FastSelect)  # help texts of every role come from solver.roles
    positive_class = forms.CharField(
        required=False,
        max_length=200,
        help_text="Label value counted as positive (two classes); empty = the larger value.",
    )
    weight = forms.ChoiceField(required=False, help_text=BY_NAME["weight"].help, widget=FastSelect)
    time = forms.ChoiceField(required=False, help_text=BY_NAME["time"].help, widget=FastSelect)
    event = forms.ChoiceField(required=False, help_text=BY_NAME["event"].help, widget=FastSelect)
    event_value = forms.CharField(
        required=False,
        max_length=200,
        label="Event value",
        help_text="Value(s) of the event column that mean an event, comma-separated; the others are censored. "
        "Empty = the column is 0/1. R's survival package codes 1 = censored, 2 = event: enter 2.",
    )
    group = forms.ChoiceField(required=False, help_text=BY_NAME["group"].help, widget=FastSelect)
    treatment = forms.ChoiceField(required=False, help_text=BY_NAME["treatment"].help, widget=FastSelect)
    outcome = forms.ChoiceField(required=False, help_text=BY_NAME["outcome"].help, widget=FastSelect)
    ignore = forms.MultipleChoiceField(
        required=False, widget=FastSelectMultiple(attrs={"size": 6}), help_text="Columns left out of the features."
    )
    max_categories = forms.IntegerField(
        min_value=1,
        max_value=200,
        initial=MAX_CATEGORIES,
        required=False,
        label="Most categories per column",
        help_text="Rarer values of a text column are grouped as 'other'.",
    )
    binarization = forms.ChoiceField(choices=BINARIZATION_CHOICES, required=False)

    def __init__(self, dataset, *args, **kwargs):
        super().__init__(*args, **kwargs)
        columns = [(c, c) for c in dataset.column_names]
        for name in ROLE_FIELDS:
            self.fields[name].choices = [("", "—")] + columns
        self.fields["ignore"].choices = columns
        self.dataset = dataset
        roles = dataset.roles
        if isinstance(self.initial.get("event_value"), (list, tuple)):
            self.initial["event_value"] = ", ".join(self.initial["event_value"])
        for i, column in enumerate(dataset.columns):
            name = column["name"]
            if column["missing"]:
                self.fields[f"missing_{i}"] = forms.ChoiceField(
                    choices=POLICY_CHOICES,
                    widget=FastSelect,
                    initial=roles.get("missing", {}).get(name, "feature"),
                    required=False,
                    label=f"Missing values of {name}",
                )
            self.fields[f"cost_{i}"] = forms.FloatField(
                min_value=0,
                required=False,
                initial=roles.get("feature_cost", {}).get(name),
                label=f"Cost of {name}",
                widget=FastNumberInput(attrs={"step": "any", "placeholder": "1"}),
            )
            if many_levels(column, roles.get("max_categories") or MAX_CATEGORIES):
                ignored = name in roles.get("ignore", ())
                self.fields[f"levels_{i}"] = forms.ChoiceField(
                    choices=level_choices(roles.get("max_categories") or MAX_CATEGORIES),
                    widget=FastSelect,
                    initial="out" if ignored else roles.get("levels", {}).get(name, "frequent"),
                    required=False,
                    label=f"Values of {name} kept",
                )
            if orderable(column):
                order = roles.get("ordered", {}).get(name)
                self.fields[f"order_{i}"] = forms.CharField(
                    required=False,
                    max_length=4000,
                    initial=" < ".join(order) if order else "",
                    label=f"Order of {name}",
                    widget=FastTextInput(attrs={"placeholder": " < ".join(sorted(column.get("counts", {}))[:3])}),
                )

    def column_rows(self):
        """Return ``[(column, missing, cost, order, levels field), ...]`` for the columns table."""
        rows = []
        for i, column in enumerate(self.dataset.columns):
            fields = [
                self[f"{kind}_{i}"] if f"{kind}_{i}" in self.fields else None
                for kind in ("missing", "cost", "order", "levels")
            ]
            rows.append((column, *fields))
        return rows

    def clean(self):
        data = super().clean()
        positive, label = data.get("positive_class"), data.get("label")
        if positive and label:
            counts = (self.dataset.column(label) or {}).get("counts") or {}
            if positive not in counts:
                self.add_error("positive_class", f"{positive!r} is not a value of the label {label!r}.")
        self._clean_event_value(data)
        for i, column in enumerate(self.dataset.columns):
            text = data.get(f"order_{i}")
            if text:
                levels = [v.strip() for v in text.replace(",", "<").split("<") if v.strip()]
                if len(levels) < 2 or len(set(levels)) != len(levels):
                    self.add_error(f"order_{i}", "List at least two different values, lowest first: a < b < c.")
                data[f"order_{i}"] = levels
        return data

    def _clean_event_value(self, data):
        try:
            values = event_values(data.get("event_value"))
        except DataError as e:
            self.add_error("event_value", str(e))
            return
        event = data.get("event")
        if values and not event:
            self.add_error("event_value", "Choose the event column first.")
        elif values and event:
            counts = (self.dataset.column(event) or {}).get("counts") or {}
            unknown = [v for v in values if v not in counts]
            if unknown:
                self.add_error("event_value", f"{unknown[0]!r} is not a value of the event column {event!r}.")
        data["event_value"] = list(values) if values else None

    def roles(self):
        data = self.cleaned_data
        roles = {name: data[name] for name in ROLE_FIELDS if data.get(name)}
        if data.get("positive_class"):
            roles["positive_class"] = data["positive_class"]
        if data.get("event_value") and data.get("event"):
            roles["event_value"] = data["event_value"]
        per_column = {"missing": {}, "feature_cost": {}, "ordered": {}, "levels": {}}
        ignore = list(data.get("ignore") or ())
        for i, name in enumerate(self.dataset.column_names):
            levels = data.get(f"levels_{i}")
            if levels == "top":
                per_column["levels"][name] = "top"
            # A changed choice here wins over the list of columns left out; an unchanged one follows it.
            if f"levels_{i}" in self.changed_data:
                if levels == "out" and name not in ignore:
                    ignore.append(name)
                elif levels != "out" and name in ignore:
                    ignore.remove(name)
            if data.get(f"missing_{i}") == "drop":
                per_column["missing"][name] = "drop"
            if data.get(f"cost_{i}") is not None:
                per_column["feature_cost"][name] = data[f"cost_{i}"]
            if data.get(f"order_{i}"):
                per_column["ordered"][name] = data[f"order_{i}"]
        if ignore:
            roles["ignore"] = ignore
        roles.update({k: v for k, v in per_column.items() if v})
        if data.get("max_categories") and data["max_categories"] != MAX_CATEGORIES:
            roles["max_categories"] = data["max_categories"]
        return roles


def many_levels(column, max_categories):
    """Return True for a text column with more values than get a feature each."""
    return (
        not column.get("numeric")
        and column["type"] in ("categorical", "identifier")
        and (column["distinct"] > max_categories or column.get("distinct_more"))
    )


def level_choices(max_categories):
    return [
        ("frequent", f"values on ≥ {MIN_LEVEL_SHARE:.0%} of rows, the rest as 'other'"),
        ("top", f"its {max_categories} most frequent, the rest as 'other'"),
        ("out", "leave the column out"),
    ]


def orderable(column):
    """Return True for a text column whose values can be put in a declared order."""
    return not column.get("numeric") and not column.get("distinct_more") and 2 < column["distinct"] <= ORDER_MAX_VALUES
