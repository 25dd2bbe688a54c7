from django import template

from solver.models import RuleList, Tree

register = template.Library()


@register.filter
def percent(value, digits=1):
    if value is None:
        return "—"
    return f"{100 * float(value):.{int(digits)}f} %"


@register.filter
def objective_of(run):
    """Return the objective a run minimised, in words (``misclassification rate + λ × leaves``), for run lists."""
    from corelsweb.runs.objectives import objective_words

    return objective_words(run.algorithm, (run.result or {}).get("params") or run.params)


@register.filter
def n_leaves(result):
    return Tree.from_dict(result["model"]).n_leaves


@register.filter
def tree_depth(result):
    return Tree.from_dict(result["model"]).depth


@register.inclusion_tag("runs/_rule_list.html")
def rule_list_table(result):
    """Render a rule list as if / else-if rows with what each rule captures, in the data's own words."""
    model = RuleList.from_dict(result["model"])
    texts = model.rule_texts() + [None]
    outputs = list(model.predictions) + [model.default]
    total_rows = model.counts.sum() or 1
    rows, covered = [], 0.0
    for k, (text, output) in enumerate(zip(texts, outputs)):
        counts = model.counts[k]
        captured = counts.sum()
        covered += captured
        rows.append(
            {
                "keyword": _keyword(k, text),
                "text": text,
                "prediction": model.classes[output],
                "captured": captured,
                "support": captured / total_rows,
                "covered": covered / total_rows,
                "class_counts": [(model.classes[c], counts[c]) for c in range(len(model.classes))],
                "errors": captured - counts[output],
                "correct_share": counts[output] / captured if captured else None,
            }
        )
    return {"rows": rows, "text": rule_list_text(model)}


def _keyword(k, text):
    """Return a row's keyword: ``if``, ``else if``, ``else``, or ``always`` for the default of a list without rules."""
    if text is None:
        return "else" if k > 0 else "always"
    return "if" if k == 0 else "else if"


def rule_list_text(model):
    """Return the rule list as plain if / else if / else lines."""
    lines = []
    for k, (text, output) in enumerate(zip(model.rule_texts(), model.predictions)):
        lines.append(f"{'if' if k == 0 else 'else if'} {text} then predict {model.classes[output]}")
    lines.append(f"else predict {model.classes[model.default]}" if lines else f"predict {model.classes[model.default]}")
    return "\n".join(lines)
