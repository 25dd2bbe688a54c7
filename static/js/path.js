// Refresh a regularization path's grid while any of its runs is queued or running.
(function () {
  "use strict";
  function start() {
    var grid = document.getElementById("path-grid");
    if (!grid || grid.dataset.active !== "1") { return; }
    var delay = 1500;
    function poll() {
      fetch(grid.dataset.progressUrl, { credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.json() : Promise.reject(r.status); })
        .then(function (data) {
          grid.innerHTML = data.html;
          window.corelswebFigures.drawAll();
          if (data.active) { window.setTimeout(poll, delay); }
        })
        .catch(function () { window.setTimeout(poll, 5000); });
    }
    window.setTimeout(poll, delay);
  }
  document.addEventListener("DOMContentLoaded", start);
})();
