// Keep the estimate box and λ's conversion in step with the run form: the server computes both
// (ℓ₀ of the chosen objective on this table, the algorithm's own advice), this only asks as the form changes.
(function () {
  "use strict";
  var DELAY = 250;

  function start() {
    var form = document.getElementById("run-form");
    var box = document.getElementById("estimate-box");
    if (!form || !box) { return; }
    var mode = document.getElementById("id_lambda_mode");
    var lambda = document.getElementById("id_p_regularization");
    var text = document.getElementById("lambda-explained");
    var original = text ? text.textContent : "";
    var timer = null, asked = 0;

    function apply(data) {
      box.innerHTML = data.html;
      if (!mode || !lambda) { return; }
      lambda.readOnly = mode.value !== "lambda";
      if (mode.value === "lambda") {
        text.textContent = original;
      } else {
        text.textContent = data.lambda_text || original;
        if (data.regularization !== null && data.regularization !== undefined) {
          lambda.value = Number(data.regularization).toPrecision(6);
        }
      }
    }

    function ask() {
      var mine = ++asked;
      var body = new FormData(form);
      if (mode && mode.value === "lambda") { body.delete("lambda_target"); }
      fetch(box.dataset.url, { method: "POST", body: body, credentials: "same-origin",
                               headers: { "Accept": "application/json" } })
        .then(function (r) { return r.ok ? r.json() : Promise.reject(r.status); })
        .then(function (data) { if (mine === asked) { apply(data); } })
        .catch(function () { /* the box keeps its last state; the server checks the form on submit */ });
    }

    function changed() {
      window.clearTimeout(timer);
      timer = window.setTimeout(ask, DELAY);
    }
    form.addEventListener("input", changed);
    form.addEventListener("change", changed);
    if (mode) { lambda.readOnly = mode.value !== "lambda"; }
  }
  document.addEventListener("DOMContentLoaded", start);
})();
