// Poll a run's progress endpoint with an adaptive interval until the run ends, then reload.
(function () {
  "use strict";
  var MIN_DELAY = 700, MAX_DELAY = 5000;

  function start() {
    var panel = document.getElementById("run-status");
    if (!panel || panel.dataset.active !== "1") { return; }
    var delay = MIN_DELAY;

    function fitAxes(div) {
      // The server drew the axes for the points it had (none before the search starts): follow the new ones,
      // as corelsweb/figures/trace.py does (x from 0 past the last point; a flat line gets a band around it).
      var xs = [], ys = [];
      div.data.slice(0, 2).forEach(function (series) { xs = xs.concat(series.x); ys = ys.concat(series.y); });
      var last = xs.length ? Math.max.apply(null, xs) : 0;
      div.layout.xaxis.range = [0, last > 0 ? last * 1.05 : 0.001];
      div.layout.xaxis.autorange = false;
      var low = ys.length ? Math.min.apply(null, ys) : 0, high = ys.length ? Math.max.apply(null, ys) : 0;
      if (ys.length && low === high) {
        var pad = Math.max(Math.abs(low) * 0.05, 1e-3);
        div.layout.yaxis.range = [low - pad, low + pad];
        div.layout.yaxis.autorange = false;
      } else {
        delete div.layout.yaxis.range;
        div.layout.yaxis.autorange = true;
      }
      var gap = div.data[2];
      if (gap && div.layout.yaxis2) {
        // A log axis around the positive gaps, as corelsweb/figures/trace.py's _gap_axis.
        var logs = gap.y.map(function (y) { return Math.log10(y); });
        var high = Math.min((logs.length ? Math.max.apply(null, logs) : -2) + 0.15, 0.02);
        var low = Math.min((logs.length ? Math.min.apply(null, logs) : -2) - 0.15, high - 0.5);
        div.layout.yaxis2.range = [low, high];
      }
    }

    function gapSeries(trace) {
      // (upper - lower) / upper where both are known, as corelsweb/figures/trace.py's gap_points.
      var xs = [], ys = [];
      (trace.elapsed || []).forEach(function (t, k) {
        var lower = (trace.lower_bound || [])[k], upper = (trace.upper_bound || [])[k];
        if (lower === null || lower === undefined || upper === null || upper === undefined) { return; }
        xs.push(t);
        ys.push(upper > 0 ? Math.max(0, (upper - lower) / upper) : 0);
      });
      return { x: xs, y: ys };
    }

    function updateTrace(trace) {
      var div = document.getElementById("live-trace");
      if (!trace || !div || !window.Plotly || !div.data) { return; }
      var keys = ["upper_bound", "lower_bound"];
      div.data.slice(0, 2).forEach(function (series, i) {
        var xs = [], ys = [];
        (trace.elapsed || []).forEach(function (t, k) {
          var v = (trace[keys[i]] || [])[k];
          if (v !== null && v !== undefined) { xs.push(t); ys.push(v); }
        });
        series.x = xs; series.y = ys;
      });
      if (div.data[2]) {
        var gap = gapSeries(trace);
        var shown = gap.y.map(function (y, k) { return k; }).filter(function (k) { return gap.y[k] > 0; });
        div.data[2].x = shown.map(function (k) { return gap.x[k]; });
        div.data[2].y = shown.map(function (k) { return gap.y[k]; });
        // The legend says the gap now (corelsweb/figures/trace.py's gap_name says it at the end of a finished run).
        var last = gap.y.length ? gap.y[gap.y.length - 1] : null, words = "Gap (upper − lower) / upper";
        div.data[2].name = last === null ? words : words + (last <= 0 ? ": 0, proved" : ": " + (100 * last).toFixed(1) + "% now");
      }
      fitAxes(div);
      if ((trace.elapsed || []).length && div.classList.contains("waiting")) {
        // The first points: show the chart (no empty axes while the run waits for its worker).
        div.classList.remove("waiting");
        var waiting = document.getElementById("live-waiting");
        if (waiting) { waiting.hidden = true; }
        // Drawn while hidden, the chart took Plotly's default width: fit it to its card once it shows.
        window.Plotly.react(div, div.data, div.layout).then(function () { window.Plotly.Plots.resize(div); });
        return;
      }
      window.Plotly.react(div, div.data, div.layout);
    }

    function poll() {
      var url = panel.dataset.progressUrl + "?v=" + encodeURIComponent(panel.dataset.version);
      fetch(url, { headers: { "Accept": "application/json" }, credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.json() : Promise.reject(r.status); })
        .then(function (data) {
          if (data.unchanged) {
            delay = Math.min(MAX_DELAY, delay * 1.5);
          } else {
            delay = MIN_DELAY;
            panel.dataset.version = data.version;
            panel.innerHTML = data.html;
            updateTrace(data.trace);
            if (!data.active) { window.location.reload(); return; }
          }
          window.setTimeout(poll, delay);
        })
        .catch(function () { delay = MAX_DELAY; window.setTimeout(poll, delay); });
    }
    window.setTimeout(poll, delay);
  }
  document.addEventListener("DOMContentLoaded", start);
})();
