from django import template

from solver.models import RuleList, Tree

register = template.Library()


@register.filter
def percent(value, digits=1):
    if value is None:
        return "—"
    return f"{100 * float(value):.{int(digits)}f} %"


@register.filter
def n_leaves(result):
    return Tree.from_dict(result["model"]).n_leaves


@register.filter
def tree_depth(result):
    return Tree.from_dict(result["model"]).depth


@register.inclusion_tag("runs/_rule_list.html")
def rule_list_table(result):
    """Render a rule list as if / else-if rows with what each rule captures."""
    model = RuleList.from_dict(result["model"])
    rows = []
    texts = model.rule_texts() + [None]
    outputs = list(model.predictions) + [model.default]
    for k, (text, output) in enumerate(zip(texts, outputs)):
        counts = model.counts[k]
        total = counts.sum()
        rows.append({
            "keyword": "if" if k == 0 else ("else if" if text is not None else "else"),
            "text": text,
            "prediction": model.classes[output],
            "captured": total,
            "correct_share": counts[output] / total if total else None,
        })
    return {"rows": rows}
