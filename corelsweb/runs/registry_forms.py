"""Run forms generated from ``solver.registry``: one field per algorithm parameter."""

from django import forms
from django.conf import settings
from django.core.validators import MaxValueValidator

from solver import registry
from solver.registry import ParameterError

GROUP_TITLES = {
    "main": "Parameters",
    "objective": "Objective",
    "search": "Search",
    "bounds": "Bounds (pruning switches: they change speed, never the optimum)",
}


def algorithm_choices():
    return [(a.name, a) for a in registry.algorithms().values()]


def field_for(param):
    """Return the Django form field of one registry ``Param``."""
    common = {"label": param.title, "help_text": param.help, "required": False}
    if param.kind == "bool":
        return forms.BooleanField(initial=param.default, **common)
    if param.kind == "choice":
        return forms.ChoiceField(choices=[(c, c) for c in param.choices], initial=param.default, **common)
    number = {"min_value": param.minimum, "max_value": param.maximum, "initial": param.default}
    if param.kind == "int":
        return forms.IntegerField(**number, **common)
    return forms.FloatField(**number, **common)


class RunForm(forms.Form):
    """Parameters of one algorithm, plus the run's limits."""

    time_limit = forms.FloatField(
        min_value=0.1, label="Time limit (seconds)",
        help_text="The search stops here and returns its best model with a proved lower bound.",
    )
    node_limit = forms.IntegerField(min_value=1, required=False, label="Node limit", help_text="Empty = no limit.")
    memory_limit_mb = forms.IntegerField(min_value=16, label="Memory limit (MB)")

    def __init__(self, algorithm, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.algorithm = algorithm
        self.fields["time_limit"].initial = settings.CORELSWEB_DEFAULT_TIME_LIMIT
        self.fields["time_limit"].max_value = settings.CORELSWEB_MAX_TIME_LIMIT
        self.fields["time_limit"].validators.append(MaxValueValidator(settings.CORELSWEB_MAX_TIME_LIMIT))
        self.fields["time_limit"].widget.attrs["max"] = settings.CORELSWEB_MAX_TIME_LIMIT
        self.fields["memory_limit_mb"].initial = settings.CORELSWEB_DEFAULT_MEMORY_LIMIT_MB
        for param in algorithm.params:
            self.fields[f"p_{param.name}"] = field_for(param)

    def param_groups(self):
        """Return ``[(title, [bound field, ...]), ...]`` in registry group order."""
        groups = {}
        for param in self.algorithm.params:
            groups.setdefault(param.group, []).append(self[f"p_{param.name}"])
        return [(GROUP_TITLES.get(g, g.capitalize()), groups[g]) for g in GROUP_TITLES if g in groups]

    def clean(self):
        data = super().clean()
        raw = {}
        for param in self.algorithm.params:
            value = data.get(f"p_{param.name}")
            if param.kind == "bool":
                raw[param.name] = bool(value)
            elif value not in (None, ""):
                raw[param.name] = value
            elif param.optional:
                raw[param.name] = ""
        try:
            data["params"] = self.algorithm.clean(raw)
        except ParameterError as e:
            raise forms.ValidationError(str(e)) from None
        return data

    def limits(self):
        data = self.cleaned_data
        return {
            "time_limit": data["time_limit"],
            "node_limit": data.get("node_limit"),
            "memory_limit": data["memory_limit_mb"] * 2**20,
        }

    @classmethod
    def initial_from(cls, algorithm, params, limits):
        """Return form initial data reproducing an earlier run."""
        initial = {f"p_{k}": v for k, v in params.items()}
        initial["time_limit"] = limits.get("time_limit")
        initial["node_limit"] = limits.get("node_limit")
        if limits.get("memory_limit"):
            initial["memory_limit_mb"] = limits["memory_limit"] // 2**20
        return initial
