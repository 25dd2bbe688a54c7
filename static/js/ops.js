// Refresh the staff queue page every few seconds.
(function () {
  "use strict";
  function start() {
    var box = document.getElementById("ops-queue");
    if (!box) { return; }
    function poll() {
      fetch(box.dataset.url, { credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.json() : Promise.reject(r.status); })
        .then(function (data) { box.innerHTML = data.html; })
        .catch(function () {})
        .then(function () { window.setTimeout(poll, 3000); });
    }
    window.setTimeout(poll, 3000);
  }
  document.addEventListener("DOMContentLoaded", start);
})();
