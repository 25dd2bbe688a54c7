// Draw every figure embedded in the page: <script type="application/json" id="fig-x"> + <div data-figure="fig-x">.
(function () {
  "use strict";
  var config = { responsive: true, displaylogo: false, toImageButtonOptions: { format: "png", scale: 2 } };

  function draw(div) {
    var source = document.getElementById(div.dataset.figure);
    if (!source || !window.Plotly) { return; }
    var fig = JSON.parse(source.textContent);
    window.Plotly.newPlot(div, fig.data, fig.layout, config).then(function () {
      div.dataset.drawn = "1";
    });
  }

  window.corelswebFigures = {
    config: config,
    drawAll: function () { document.querySelectorAll("[data-figure]").forEach(draw); }
  };
  document.addEventListener("DOMContentLoaded", window.corelswebFigures.drawAll);
})();
