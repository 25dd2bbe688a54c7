"""scikit-learn style estimators over ``solver.solve``.

Each estimator is a thin wrapper: ``__init__`` only stores keyword-only
parameters (the registry's names plus ``time_limit``, ``node_limit`` and
``binarize``), ``fit`` builds a ``Problem`` and calls ``solve``. Fitted
attributes end in ``_``: ``model_``, ``result_``, ``objective_``,
``lower_bound_``, ``optimal_``, ``classes_``, ``n_features_in_``.

``X`` may be 0/1 (used as given) or numeric: ``binarize=None`` takes the
algorithm's default from the registry, as the web form and the command line
do (``exact``, a threshold at every midpoint, so that optimality holds for the
raw values; CORELS mines its rules from ``quantile:8``).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, _num_samples, check_is_fitted, validate_data

from solver import predicates, registry, survival
from solver.api import Limits, solve
from solver.data.binarize import Roles, make_problem
from solver.data.table import Table
from solver.survival_metrics import tree_metrics

SOLVE_OPTIONS = ("time_limit", "node_limit", "binarize")


def _keep_parameters(estimator, arguments):
    """Store ``__init__``'s keyword arguments as attributes of the same names (scikit-learn's convention)."""
    for name, value in arguments.items():
        if name != "self":
            setattr(estimator, name, value)


def binarization(estimator):
    """Return the binarization of an estimator's fit: its ``binarize``, else its algorithm's registry default."""
    return registry.get(estimator.algorithm).binarization_for(estimator.binarize)


class SolverClassifierMixin(ClassifierMixin):
    """Shared ``fit``/``predict`` of the classifier estimators; subclasses set ``algorithm``."""

    algorithm = None

    def _solver_params(self):
        names = [p.name for p in registry.get(self.algorithm).params]
        return {name: getattr(self, name) for name in names}

    def fit(self, X, y, sample_weight=None):
        """Fit the model; return ``self``."""
        names = _feature_names(X)
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite=True)
        check_classification_targets(y)
        self.feature_names_in_ = np.asarray(names, dtype=object) if names is not None else None
        problem = self._problem(X, y, sample_weight, names)
        limits = Limits(time_limit=self.time_limit, node_limit=self.node_limit)
        self.result_ = solve(problem, self.algorithm, self._solver_params(), limits)
        self.model_ = self.result_.model
        self.classes_ = np.unique(y)
        self._class_of = {str(_label_text(c)): c for c in self.classes_}
        self.objective_ = self.result_.objective
        self.lower_bound_ = self.result_.lower_bound
        self.optimal_ = self.result_.optimal
        return self

    def _problem(self, X, y, sample_weight, names):
        names = list(names) if names is not None else [f"x{j}" for j in range(X.shape[1])]
        table = Table({name: X[:, j] for j, name in enumerate(names)})
        table.columns["__label__"] = np.array([_label_text(v) for v in y], dtype=object)
        problem = make_problem(table, Roles(label="__label__"), binarization(self))
        if sample_weight is not None:
            problem = problem.with_changes(sample_weight=np.asarray(sample_weight, dtype=np.float64))
        return problem

    def _rows(self, X):
        """Return the rows of ``X`` as a raw table the model reads its splits from."""
        X = validate_data(self, X, dtype=np.float64, reset=False, ensure_all_finite=True)
        names = self.feature_names_in_ if self.feature_names_in_ is not None else [f"x{j}" for j in range(X.shape[1])]
        return {name: X[:, j] for j, name in enumerate(names)}

    def predict(self, X):
        """Return the predicted class of every row."""
        check_is_fitted(self, "model_")
        index = self.model_.predict(self._rows(X))
        labels = np.array([self._class_of[self.model_.classes[i]] for i in index])
        return labels.astype(self.classes_.dtype, copy=False)

    def predict_proba(self, X):
        """Return the training class shares of the leaf (or rule) each row reaches."""
        check_is_fitted(self, "model_")
        counts = self.model_.counts[self.model_.apply(self._rows(X))]
        total = counts.sum(axis=1, keepdims=True)
        shares = np.divide(counts, total, out=np.full_like(counts, 1.0 / counts.shape[1]), where=total > 0)
        order = [self.model_.classes.index(str(_label_text(c))) for c in self.classes_]
        return shares[:, order]


def _feature_names(X):
    columns = getattr(X, "columns", None)
    return [str(c) for c in columns] if columns is not None else None


def _label_text(v):
    return predicates.as_text(v.item() if isinstance(v, np.generic) else v)


class CARTClassifier(SolverClassifierMixin, BaseEstimator):
    """Greedy CART pruned for misclassification + λ × leaves (the baseline)."""

    algorithm = "cart"

    def __init__(
        self,
        *,
        max_depth=4,
        min_samples_leaf=1,
        criterion="gini",
        regularization=0.0,
        time_limit=None,
        node_limit=None,
        binarize=None,
    ):
        _keep_parameters(self, locals())


class CorelsClassifier(SolverClassifierMixin, BaseEstimator):
    """Certifiably optimal rule list (CORELS) for two classes.

    Minimises misclassification + ``regularization`` × rules over ordered rule
    lists whose antecedents are mined from the binarized features (or, with
    ``antecedents="given"``, are the 0/1 columns themselves). ``rule_list_``
    is the fitted ``solver.models.RuleList``; ``optimal_`` says whether the
    search proved it optimal before its limits.
    """

    algorithm = "corels"

    def __init__(
        self,
        *,
        regularization=0.01,
        max_length=None,
        antecedents="mined",
        min_support=0.01,
        max_clauses=1,
        negations=True,
        policy="lower_bound",
        queue_memory=512,
        use_garbage_collection=True,
        use_hierarchical_bound=True,
        use_lookahead_bound=True,
        use_length_bound=True,
        use_minimum_support_bound=True,
        use_accurate_support_bound=True,
        use_equivalent_points_bound=True,
        use_permutation_map=True,
        use_captured_vector_map=True,
        time_limit=None,
        node_limit=None,
        binarize=None,
    ):
        _keep_parameters(self, locals())

    def fit(self, X, y):
        """Fit the rule list; return ``self``. CORELS counts rows, so it takes no sample weights."""
        if y is None:
            raise ValueError("CorelsClassifier requires y to be passed, but the target y is None.")
        check_classification_targets(y)
        classes = np.unique(np.asarray(y))
        if len(classes) > 2:
            raise ValueError(f"Only binary classification is supported by CORELS; y has {len(classes)} classes.")
        if len(classes) < 2:
            raise ValueError("CORELS needs two classes to learn from; y has one class.")
        super().fit(X, y)
        self.rule_list_ = self.model_
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


class OSSTSurvivalTree(BaseEstimator):
    """Optimal sparse survival tree (OSST): Kaplan-Meier leaves, minimal IBS + λ × leaves.

    Follows scikit-survival's conventions: ``y`` is a structured array with
    a boolean event field and a float time field (``solver.survival.survival_y``
    builds one; scikit-survival's ``Surv.from_arrays`` works too).

    ``regularization=None`` (the default) chooses λ from the data: 1 % of the single-leaf integrated Brier
    score (``solver.regularization.scaled_default``); ``result_.params`` holds the value used.

    ``event_value`` (default None) maps an event field coded with numbers, as
    R's ``survival`` package does (1 = censored, 2 = event: ``event_value=2``),
    to the event indicator; the same name as the web's and the command line's.

    Fitted attributes: ``model_`` (a survival ``solver.models.Tree``),
    ``result_``, ``objective_``, ``lower_bound_``, ``optimal_``,
    ``unique_times_`` (the distinct training times), ``n_features_in_``.
    """

    algorithm = "osst"

    def __init__(
        self,
        *,
        regularization=None,
        max_depth=4,
        min_samples_leaf=7,
        time_normalizer="range",
        ipcw_ties="osst",
        use_lookahead_bound=True,
        use_equivalent_points_bound=True,
        use_incremental_progress_bound=True,
        use_subtree_bound=True,
        use_reference_bound=False,
        reference_model="class_km",
        time_limit=None,
        node_limit=None,
        binarize=None,
        event_value=None,
    ):
        _keep_parameters(self, locals())

    def fit(self, X, y):
        """Fit the tree to features ``X`` and the structured survival target ``y``; return ``self``."""
        names = _feature_names(X)
        X = validate_data(self, X, dtype=np.float64, ensure_all_finite=True)
        event, time = survival.split_survival_y(y, self.event_value)
        if len(event) != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {len(event)}")
        self.feature_names_in_ = np.asarray(names, dtype=object) if names is not None else None
        names = list(names) if names is not None else [f"x{j}" for j in range(X.shape[1])]
        table = Table({name: X[:, j] for j, name in enumerate(names)})
        table.columns["__time__"], table.columns["__event__"] = time, event.astype(np.float64)
        problem = make_problem(table, Roles(time="__time__", event="__event__"), binarization(self))
        params = {p.name: getattr(self, p.name) for p in registry.get(self.algorithm).params}
        self.result_ = solve(
            problem, self.algorithm, params, Limits(time_limit=self.time_limit, node_limit=self.node_limit)
        )
        self.model_ = self.result_.model
        self.unique_times_ = np.unique(time)
        self.objective_ = self.result_.objective
        self.lower_bound_ = self.result_.lower_bound
        self.optimal_ = self.result_.optimal
        self._train = (event, time)
        return self

    def _rows(self, X):
        check_is_fitted(self, "model_")
        X = validate_data(self, X, dtype=np.float64, reset=False, ensure_all_finite=True)
        names = self.feature_names_in_ if self.feature_names_in_ is not None else [f"x{j}" for j in range(X.shape[1])]
        return {name: X[:, j] for j, name in enumerate(names)}

    def apply(self, X):
        """Return the node index of the leaf each row reaches."""
        rows = self._rows(X)  # checks the fit before ``model_`` is read
        return self.model_.apply(rows)

    def predict_survival_function(self, X, return_array=False):
        """Return each row's leaf KM curve: ``StepCurve`` objects, or values at ``unique_times_`` with ``return_array``."""
        leaves = self.apply(X)
        curves = self.model_.curves
        if return_array:
            table = {
                leaf: survival.step_values(c["time"], c["survival"], self.unique_times_) for leaf, c in curves.items()
            }
            return np.array([table[leaf] for leaf in leaves]).reshape(len(leaves), len(self.unique_times_))
        steps = {leaf: survival.StepCurve(c["time"], c["survival"]) for leaf, c in curves.items()}
        return np.array([steps[leaf] for leaf in leaves], dtype=object)

    def predict(self, X):
        """Return a risk score per row: minus the area under its curve up to the last training time.

        Higher means shorter expected survival (scikit-survival's sign convention).
        """
        estimates = self.predict_survival_function(X, return_array=True)
        return -(estimates[:, :-1] * np.diff(self.unique_times_)).sum(axis=1)

    def score(self, X, y):
        """Return Harrell's concordance index of the predicted curves (the OSST paper's Eq. 43)."""
        return self.metrics(X, y)["harrell_c"]

    def metrics(self, X, y):
        """Return IBS, IBS ratio, Harrell's C and Uno's C on ``(X, y)``, with Ĝ from the training data."""
        event, time = survival.split_survival_y(y, self.event_value)
        train_event, train_time = self._train
        return tree_metrics(
            self.model_,
            self._rows(X),
            event,
            time,
            train_event=train_event,
            train_time=train_time,
            ties=self.ipcw_ties,
            normalizer=self.time_normalizer,
        )


class OSDTClassifier(SolverClassifierMixin, BaseEstimator):
    """OSDT: the provably optimal tree for misclassification + λ × leaves, by branch and bound over leaf sets.

    Parameters are the registry's (``solver/osdt/params.py``): ``regularization``
    (λ > 0), ``max_depth``, ``policy``, ``warm_start``, ``feature_order``,
    ``prune_when_queued`` and one ``use_<bound>`` switch per bound of the paper.
    ``optimal_`` is True when the search proved its tree optimal within the limits.
    """

    algorithm = "osdt"

    def __init__(
        self,
        *,
        regularization=0.01,
        max_depth=None,
        policy="curiosity",
        warm_start=True,
        feature_order="gini",
        prune_when_queued=True,
        use_hierarchical_bound=True,
        use_lookahead_bound=True,
        use_equivalent_points_bound=True,
        use_support_bound=True,
        use_incremental_accuracy_bound=True,
        use_leaf_accuracy_bound=True,
        use_leaf_count_bound=True,
        use_prefix_leaf_count_bound=True,
        use_permutation_map=True,
        use_similar_support=False,
        time_limit=None,
        node_limit=None,
        binarize=None,
    ):
        _keep_parameters(self, locals())


class GOSDTClassifier(SolverClassifierMixin, BaseEstimator):
    """GOSDT: the provably optimal sparse tree for loss + λ × leaves (Lin et al., ICML 2020).

    Parameters are the registry's (``solver/gosdt/params.py``): ``objective``
    (accuracy with any number of classes; balanced or weighted accuracy, F-score,
    AUC or partial AUC of the ROC convex hull for two classes), ``regularization``
    (λ), ``max_depth`` (split levels, a stump has 1; the gosdt package's
    ``depth_budget`` counts the same), ``cost_weight`` (ω), ``pauc_theta`` (θ)
    and one ``use_<bound>`` switch per bound of the dynamic programming with
    bounds. ``fit`` takes ``sample_weight``. ``optimal_`` is True when the search
    proved its tree optimal within the limits; otherwise ``lower_bound_`` and
    ``objective_`` bracket the optimum. ``tree_`` is the fitted ``solver.models.Tree``.
    """

    algorithm = "gosdt"

    def __init__(
        self,
        *,
        objective="accuracy",
        regularization=0.01,
        max_depth=None,
        cost_weight=1.0,
        pauc_theta=0.1,
        use_hierarchical_bound=True,
        use_lookahead_bound=True,
        use_incremental_progress_bound=True,
        use_progress_lower_bound=True,
        use_equivalent_points_bound=True,
        use_leaf_permutation_bound=True,
        use_leaf_count_bound=True,
        use_similar_support_bound=True,
        threshold_search="auto",
        time_limit=None,
        node_limit=None,
        binarize=None,
    ):
        _keep_parameters(self, locals())

    def fit(self, X, y, sample_weight=None):
        """Fit the tree (``sample_weight`` optional); return ``self``."""
        if y is None:
            raise ValueError("GOSDTClassifier requires y to be passed, but the target y is None.")
        check_classification_targets(y)
        if len(np.unique(np.asarray(y))) < 2:
            raise ValueError("GOSDT needs two classes to learn from; y has one class.")
        if sample_weight is not None:
            # Rows of weight 0 change nothing in the loss but would add thresholds: leave them out, so that
            # a weight of k is exactly k repeated rows and 0 is no row.
            sample_weight = _check_sample_weight(sample_weight, np.empty((_num_samples(X), 0)))
            keep = sample_weight > 0
            X = X.iloc[keep] if hasattr(X, "iloc") else np.asarray(X)[keep]
            y, sample_weight = np.asarray(y)[keep], sample_weight[keep]
        super().fit(X, y, sample_weight=sample_weight)
        self.tree_ = self.model_
        return self


class STreeDClassifier(SolverClassifierMixin, BaseEstimator):
    """STreeD: the optimal tree of a given depth (and node budget) for a separable objective.

    ``objective`` is ``accuracy``, ``cost_sensitive`` (misclassification plus the
    test costs given to ``fit`` as ``feature_cost``, one per column of X; the
    binary features of one column pay once), ``f1`` (best F1 over the front of
    false negatives and false positives), ``demographic_parity`` or
    ``equality_of_opportunity`` (fewest errors with discrimination at most
    ``delta``; ``fit`` then needs ``group``, 0/1 per row). ``misclassification_costs``
    (``cost_sensitive``): a K × K table, row = true class, column = predicted, in the
    order of ``classes_`` (or the registry's text, ``"0 1; 5 0"``). Other parameters are
    the registry's (``solver/streed/params.py``). ``front_`` holds the root
    front of F1 and fairness fits (every point's values; the trees of 40 points spread along it,
    the reported one included, under ``"model"``).
    """

    algorithm = "streed"

    def __init__(
        self,
        *,
        objective="accuracy",
        max_depth=3,
        max_nodes=None,
        min_samples_leaf=1,
        delta=0.01,
        misclassification_costs=None,
        teacher="doubly_robust",
        capacity=None,
        reference_treatment=None,
        use_depth_two_solver=True,
        use_upper_bound=True,
        use_lower_bound=True,
        use_similarity_lower_bound=True,
        use_dataset_caching=True,
        use_branch_caching=False,
        threshold_search="auto",
        time_limit=None,
        node_limit=None,
        binarize=None,
    ):
        _keep_parameters(self, locals())

    def fit(self, X, y, sample_weight=None, group=None, feature_cost=None):
        """Fit the tree; return ``self``."""
        if self.objective == "policy":
            raise ValueError("For policy trees use STreeDPolicyTree.")
        if y is not None and len(np.unique(np.asarray(y))) < 2:
            raise ValueError("STreeD needs two classes to learn from; y has one class.")
        self._group, self._feature_cost = group, feature_cost
        super().fit(X, y, sample_weight)
        self.tree_ = self.model_
        self.front_ = self.result_.extras.get("front")
        return self

    def _problem(self, X, y, sample_weight, names):
        names = list(names) if names is not None else [f"x{j}" for j in range(X.shape[1])]
        table = Table({name: X[:, j] for j, name in enumerate(names)})
        table.columns["__label__"] = np.array([_label_text(v) for v in y], dtype=object)
        roles = {"label": "__label__"}
        if self._group is not None:
            group = np.asarray(self._group)
            if group.shape != (X.shape[0],) or not np.isin(group, (0, 1)).all():
                raise ValueError("group must hold 0 or 1 for every row of X.")
            table.columns["__group__"] = group.astype(np.float64)
            roles["group"] = "__group__"
        if self._feature_cost is not None:
            costs = np.asarray(self._feature_cost, dtype=np.float64)
            if costs.shape != (X.shape[1],):
                raise ValueError("feature_cost needs one cost per column of X.")
            roles["feature_cost"] = dict(zip(names, costs.tolist()))
        problem = make_problem(table, Roles(**roles), binarization(self))
        if sample_weight is not None:
            problem = problem.with_changes(sample_weight=np.asarray(sample_weight, dtype=np.float64))
        self._costs_text = self._costs(problem, np.unique(y))
        return problem

    def _costs(self, problem, classes):
        # A table of costs is in the order of classes_ (``classes``); the solver reads a text in the problem's order.
        costs = self.misclassification_costs
        if costs is None or isinstance(costs, str):
            return costs
        M = np.asarray(costs, dtype=np.float64)
        K = len(classes)
        if M.shape != (K, K):
            raise ValueError(f"misclassification_costs needs a {K} × {K} table, one row per class of classes_.")
        names = [str(_label_text(c)) for c in classes]
        at = [names.index(c) for c in problem.classes]
        number = [[repr(float(x)).removesuffix(".0") for x in row] for row in M]
        return "; ".join(" ".join(number[i][j] for j in at) for i in at)

    def _solver_params(self):
        return {**super()._solver_params(), "misclassification_costs": self._costs_text}


def policy_params():
    """Return the names of STreeD's parameters that apply to policy trees (all but ``objective`` and other tasks')."""
    config = {"objective": "policy"}
    return [
        p.name
        for p in registry.get("streed").params
        if p.name != "objective" and all(config.get(k, v[0]) in v for k, v in p.visible_when.items())
    ]


class STreeDPolicyTree(BaseEstimator):
    """STreeD prescriptive policy tree: assigns the treatment with the highest estimated outcome (App. D).

    ``fit(X, treatment, outcome)``; ``teacher`` scores each row and treatment
    (``direct``, ``ipw``, ``doubly_robust``). ``capacity``: the largest share of
    rows sent to a treatment other than ``reference_treatment`` (as given in
    ``treatment``; None: the first in sorted order). ``predict`` returns treatments.
    """

    algorithm = "streed"

    def __init__(
        self,
        *,
        max_depth=3,
        max_nodes=None,
        min_samples_leaf=1,
        teacher="doubly_robust",
        capacity=None,
        reference_treatment=None,
        use_depth_two_solver=True,
        use_upper_bound=True,
        use_lower_bound=True,
        use_similarity_lower_bound=True,
        use_dataset_caching=True,
        use_branch_caching=False,
        threshold_search="auto",
        time_limit=None,
        node_limit=None,
        binarize=None,
    ):
        _keep_parameters(self, locals())

    def fit(self, X, treatment, outcome):
        """Fit the policy tree; return ``self``."""
        names = _feature_names(X)
        X = validate_data(self, X, dtype=np.float64, ensure_all_finite=True)
        names = list(names) if names is not None else [f"x{j}" for j in range(X.shape[1])]
        self.feature_names_in_ = np.asarray(names, dtype=object)
        table = Table({name: X[:, j] for j, name in enumerate(names)})
        table.columns["__treatment__"] = np.array([_label_text(v) for v in np.asarray(treatment)], dtype=object)
        table.columns["__outcome__"] = np.asarray(outcome, dtype=np.float64)
        problem = make_problem(table, Roles(treatment="__treatment__", outcome="__outcome__"), binarization(self))
        params = {name: getattr(self, name) for name in policy_params()}
        params["objective"] = "policy"
        if self.reference_treatment is not None:
            params["reference_treatment"] = _label_text(self.reference_treatment)
        self.result_ = solve(problem, "streed", params, Limits(time_limit=self.time_limit, node_limit=self.node_limit))
        self.model_ = self.tree_ = self.result_.model
        self.treatments_ = list(problem.treatments)
        self.policy_value_ = self.result_.extras["value"]["policy_value"]
        self.optimal_ = self.result_.optimal
        return self

    def predict(self, X):
        """Return the assigned treatment (as text) of every row."""
        check_is_fitted(self, "model_")
        X = validate_data(self, X, dtype=np.float64, reset=False, ensure_all_finite=True)
        table = {name: X[:, j] for j, name in enumerate(self.feature_names_in_)}
        index = self.model_.predict(table)
        return np.array([self.model_.classes[i] for i in index], dtype=object)


class RashomonSet(SolverClassifierMixin, BaseEstimator):
    """Every sparse tree within (1 + ε) of the optimum (TreeFARMS: Xin et al., NeurIPS 2022), kept as a graph.

    Parameters are the registry's (``solver/rashomon/params.py``): ``objective`` (accuracy, balanced or
    weighted accuracy), ``regularization`` (λ), ``max_depth`` (splits on a path; treefarms'
    ``depth_budget`` is one more), ``epsilon`` (ε), ``additive_epsilon`` (δ), ``objective_bound`` (θ),
    ``cost_weight`` (ω), the set's definition (``ignore_trivial_extensions``, ``leaf_labels``,
    ``integer_gamma``) and the sound bound switches. Fitted: ``set_``
    (``solver.rashomon.sets.TreeSet``), ``count_`` (exact, a Python int), ``model_`` (a best tree).
    ``predict`` is the set's majority vote (ties predict the positive class), ``predict_proba`` the
    share of trees voting for each class, ``ambiguity`` says on which rows the trees disagree.
    """

    algorithm = "rashomon"

    def __init__(
        self,
        *,
        objective="accuracy",
        regularization=0.01,
        max_depth=None,
        epsilon=0.05,
        additive_epsilon=None,
        objective_bound=None,
        cost_weight=1.0,
        ignore_trivial_extensions=True,
        leaf_labels="majority",
        integer_gamma=False,
        use_hierarchical_bound=True,
        use_lookahead_bound=True,
        use_equivalent_points_bound=True,
        use_leaf_permutation_bound=True,
        time_limit=None,
        node_limit=None,
        binarize=None,
    ):
        _keep_parameters(self, locals())

    def fit(self, X, y, sample_weight=None):
        """Find the set; return ``self``."""
        from solver.rashomon.report import load

        super().fit(X, y, sample_weight=sample_weight)
        extras = self.result_.extras
        self.set_ = self.result_.live.get("set")  # the search's own graph, kept in memory whatever its size
        if self.set_ is None and extras.get("graph"):
            self.set_ = load(extras["graph"])
        if self.set_ is None:
            raise ValueError(
                "No part of the Rashomon set was proved within the limits (GOSDT's optimum first); raise time_limit."
            )
        self.count_ = extras["count"]
        return self

    def _set_binary(self, X):
        X = validate_data(self, X, dtype=np.float64, reset=False, ensure_all_finite=True)
        names = self.feature_names_in_ if self.feature_names_in_ is not None else [f"x{j}" for j in range(X.shape[1])]
        table = {name: X[:, j] for j, name in enumerate(names)}
        features = self.model_.features
        out = np.zeros((X.shape[0], len(features)), dtype=np.uint8)
        for j in self.set_.features_used():
            out[:, j] = predicates.evaluate(features[j], table)
        return out

    def votes(self, X):
        """Return, for every row, the number of trees of the set predicting the positive class (Python ints)."""
        from solver.rashomon.report import votes

        check_is_fitted(self, "set_")
        return votes(self.set_, self._set_binary(X))

    def class_votes(self, X):
        """Return, for every row and every class (``classes_`` order), the number of trees of the set predicting it."""
        from solver.rashomon.report import votes

        check_is_fitted(self, "set_")
        k = len(self.model_.classes)
        if k == 2:
            ones = np.array(self.votes(X), dtype=object)
            by_index = np.column_stack([self.count_ - ones, ones])
        else:
            binary = self._set_binary(X)
            by_index = np.column_stack([np.array(votes(self.set_, binary, label=c), dtype=object) for c in range(k)])
        order = [self.model_.classes.index(str(_label_text(c))) for c in self.classes_]
        return by_index[:, order]

    def predict_proba(self, X):
        """Return the share of the set's trees voting for each class."""
        if not self.count_:
            return np.zeros((_num_samples(X), len(self.classes_)))
        return (self.class_votes(X) / self.count_).astype(np.float64)

    def predict(self, X):
        """Return the majority vote of the set (a tie predicts the higher class, as a tied leaf does)."""
        if len(self.model_.classes) == 2:
            index = np.array([1 if 2 * v >= self.count_ else 0 for v in self.votes(X)])
            labels = np.array([self._class_of[self.model_.classes[i]] for i in index])
            return labels.astype(self.classes_.dtype, copy=False)
        v = self.class_votes(X)
        order = [self.model_.classes.index(str(_label_text(c))) for c in self.classes_]
        best = [max(range(v.shape[1]), key=lambda j: (row[j], order[j])) for row in v]
        return self.classes_[best]

    def ambiguity(self, X):
        """Return (share of trees predicting the positive class, whether the trees disagree) per row."""
        v = self.votes(X)
        return (np.array([n / self.count_ for n in v]), np.array([0 < n < self.count_ for n in v]))

    def trees(self, k=10):
        """Return the ``k`` best trees of the set (objective order) as ``solver.models.Tree``."""
        from solver.rashomon.report import to_tree

        return [to_tree(self.set_, t, self.model_) for _, t in self.set_.trees(limit=k)]

    def sample(self, n, seed=0):
        """Return ``n`` trees drawn uniformly from the set."""
        from solver.rashomon.report import to_tree

        return [to_tree(self.set_, t, self.model_) for t in self.set_.sample(n, seed=seed)]
