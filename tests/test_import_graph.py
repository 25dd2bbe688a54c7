# Check that no module of corelsweb/ imports itself back through others, not even from inside a function.
import ast

from tests.conftest import ROOT

PACKAGE = ROOT / "corelsweb"


def module_name(path):
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(tree, modules):
    """Return the corelsweb modules a module's source imports (function-level imports included)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{a.name}" for a in node.names] + [node.module]
        else:
            continue
        out.update(n for n in names if n in modules)
    return out


def import_graph():
    files = [p for p in PACKAGE.rglob("*.py") if "tests" not in p.parts and "migrations" not in p.parts]
    modules = {module_name(p): p for p in files}
    return {name: imported(ast.parse(path.read_text()), modules) - {name} for name, path in modules.items()}


def find_cycle(graph):
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        state[node] = "done"
        stack.pop()
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_corelsweb_has_no_import_circles():
    graph = import_graph()
    # Packages' __init__ modules that only re-export (corelsweb/__init__ exposes the Celery app) are leaves.
    graph = {k: {m for m in v if m != "corelsweb"} for k, v in graph.items()}
    cycle = find_cycle(graph)
    assert cycle is None, "import circle: " + " -> ".join(cycle)
    assert "corelsweb.runs.tasks" not in set().union(*graph.values()), "tasks are sent by name, never imported"
