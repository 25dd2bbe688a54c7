// Rashomon run page: filters ask the server for the exact count on the set's graph; opened trees are redrawn to fit.
(function () {
  "use strict";

  function query(form) {
    var params = new URLSearchParams();
    form.querySelectorAll("select").forEach(function (select) {
      var chosen = Array.prototype.filter.call(select.options, function (o) { return o.selected; })
        .map(function (o) { return o.value; });
      if (chosen.length) { params.set(select.name, chosen.join(",")); }
    });
    form.querySelectorAll("input").forEach(function (input) {
      if (input.value !== "") { params.set(input.name, input.value); }
    });
    return params.toString();
  }

  function update(form) {
    var out = document.getElementById("rashomon-filtered");
    fetch(form.dataset.countUrl + "?" + query(form), { credentials: "same-origin" })
      .then(function (r) { return r.json(); })
      .then(function (data) {
        out.textContent = data.error ? data.error : data.count_text;
        if (!data.error && data.listed_kept) { followFilters(data.listed_kept); }
      })
      .catch(function () { out.textContent = "(the count could not be fetched)"; });
  }

  // The list holds the best trees of the whole set: show those the filters keep, and say how many.
  function followFilters(kept) {
    var items = document.querySelectorAll("#rashomon-trees > li");
    var shown = 0;
    items.forEach(function (li, i) {
      var keep = kept[i] !== false;
      li.hidden = !keep;
      if (keep) { shown += 1; }
    });
    var note = document.getElementById("rashomon-trees-note");
    if (note) {
      note.textContent = shown === items.length ? "" :
        shown + " of the " + items.length + " best trees of the set pass these filters" +
        (shown ? " (the others are hidden)." : ".");
    }
  }

  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("rashomon-filter");
    if (form) {
      form.addEventListener("change", function () { update(form); });
      form.addEventListener("submit", function (e) { e.preventDefault(); update(form); });
    }
    document.querySelectorAll("#rashomon-trees details").forEach(function (d) {
      d.addEventListener("toggle", function () {
        var div = d.querySelector("[data-figure]");
        if (d.open && div && window.Plotly && div.dataset.drawn) { window.Plotly.Plots.resize(div); }
      });
    });
  });
})();
