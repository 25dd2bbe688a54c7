// Show λ converted from "at most L leaves" or "at least k rows" as the user types (the server recomputes it).
(function () {
  "use strict";
  function start() {
    var form = document.getElementById("run-form");
    var mode = document.getElementById("id_lambda_mode");
    var target = document.getElementById("id_lambda_target");
    var lambda = document.getElementById("id_p_regularization");
    var text = document.getElementById("lambda-explained");
    if (!form || !mode || !target || !lambda) { return; }
    var original = text.textContent;
    var n = Number(form.dataset.nRows);

    function loss0() {
      var objective = document.getElementById("id_p_objective");
      var value = objective ? objective.value : "accuracy";
      if (value === "balanced_accuracy") { return 0.5; }
      return value === "accuracy" ? Number(form.dataset.loss0) : 1.0;
    }

    function update() {
      var t = Number(target.value);
      lambda.readOnly = mode.value !== "lambda";
      if (mode.value === "lambda" || !t) { text.textContent = original; return; }
      var lam;
      if (mode.value === "max_leaves") {
        if (t < 2) { text.textContent = "Ask for at least 2 leaves."; return; }
        lam = loss0() / (t - 1);
        text.textContent = "λ = ℓ₀ / (L − 1) = " + loss0().toPrecision(4) + " / " + (t - 1) + " = " +
          lam.toPrecision(4) + ": an optimal model then has at most " + t + " leaves (often far fewer).";
      } else {
        lam = t / n;
        text.textContent = "λ = k / N = " + t + " / " + n + " = " + lam.toPrecision(4) +
          ": every rule of an optimal rule list captures at least " + t + " rows; sibling leaves of an optimal " +
          "tree hold at least " + (2 * t) + " rows together.";
      }
      lambda.value = lam.toPrecision(6);
    }
    [mode, target].forEach(function (el) { el.addEventListener("input", update); el.addEventListener("change", update); });
    update();
  }
  document.addEventListener("DOMContentLoaded", start);
})();
