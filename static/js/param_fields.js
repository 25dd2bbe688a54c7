// Show an algorithm parameter only where it applies: a field with data-visible-when (the registry's visible_when,
// e.g. fairness δ for the fairness objectives) is hidden unless every named field holds one of its values.
(function () {
  "use strict";

  function showApplicable() {
    document.querySelectorAll("[data-visible-when]").forEach(function (input) {
      var when = JSON.parse(input.dataset.visibleWhen);
      var shown = Object.keys(when).every(function (id) {
        var other = document.getElementById(id);
        return !other || when[id].indexOf(other.value) >= 0;
      });
      (input.closest(".field") || input).hidden = !shown;
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    showApplicable();
    document.querySelectorAll("form.run-form").forEach(function (form) {
      form.addEventListener("change", showApplicable);
    });
  });
})();
