from django import forms

from corelsweb.datasets.samples import SAMPLES

BINARIZATION_CHOICES = [
    ("exact", "Exact: a threshold at every midpoint (keeps optimality for the raw data)"),
    ("quantile:8", "Approximate: 8 quantile thresholds per numeric column"),
    ("quantile:4", "Approximate: 4 quantile thresholds per numeric column"),
    ("none", "None: every feature column is already 0/1"),
]

ROLE_FIELDS = ("label", "weight", "time", "event", "group", "treatment", "outcome")


class UploadForm(forms.Form):
    file = forms.FileField(help_text="CSV or TSV with a header row.")
    name = forms.CharField(max_length=200, required=False, help_text="Defaults to the file name.")


class SampleForm(forms.Form):
    sample = forms.ChoiceField(choices=[(k, s.name) for k, s in SAMPLES.items()])


class RolesForm(forms.Form):
    """Choose which column plays which role, and how to binarize the rest."""

    label = forms.ChoiceField(required=False)
    positive_class = forms.CharField(
        required=False, max_length=200, help_text="Label value counted as positive (two classes); empty = the larger value."
    )
    weight = forms.ChoiceField(required=False)
    time = forms.ChoiceField(required=False, help_text="Survival time (survival trees).")
    event = forms.ChoiceField(required=False, help_text="1 = event observed, 0 = censored.")
    group = forms.ChoiceField(required=False, help_text="Protected group (fairness constraints).")
    treatment = forms.ChoiceField(required=False, help_text="Treatment given (policy trees).")
    outcome = forms.ChoiceField(required=False, help_text="Observed outcome (policy trees).")
    ignore = forms.MultipleChoiceField(required=False, widget=forms.SelectMultiple(attrs={"size": 6}))
    binarization = forms.ChoiceField(choices=BINARIZATION_CHOICES)

    def __init__(self, dataset, *args, **kwargs):
        super().__init__(*args, **kwargs)
        columns = [(c, c) for c in dataset.column_names]
        for name in ROLE_FIELDS:
            self.fields[name].choices = [("", "—")] + columns
        self.fields["ignore"].choices = columns
        self.dataset = dataset

    def clean(self):
        data = super().clean()
        positive, label = data.get("positive_class"), data.get("label")
        if positive and label:
            counts = (self.dataset.column(label) or {}).get("counts") or {}
            if positive not in counts:
                self.add_error("positive_class", f"{positive!r} is not a value of the label {label!r}.")
        return data

    def roles(self):
        data = self.cleaned_data
        roles = {name: data[name] for name in ROLE_FIELDS if data.get(name)}
        if data.get("positive_class"):
            roles["positive_class"] = data["positive_class"]
        if data.get("ignore"):
            roles["ignore"] = list(data["ignore"])
        return roles
