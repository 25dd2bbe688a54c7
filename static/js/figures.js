// Draw every figure embedded in the page: <script type="application/json" id="fig-x"> + <div data-figure="fig-x">.
// Each figure's toolbar downloads it as PNG (camera) or SVG (the added button).
(function () {
  "use strict";

  function config(name) {
    return {
      responsive: true,
      displaylogo: false,
      toImageButtonOptions: { format: "png", scale: 2, filename: name },
      modeBarButtonsToAdd: [{
        name: "Download as SVG",
        icon: window.Plotly.Icons.disk,
        click: function (gd) { window.Plotly.downloadImage(gd, { format: "svg", filename: name }); }
      }]
    };
  }

  function draw(div) {
    var source = document.getElementById(div.dataset.figure);
    if (!source || !window.Plotly) { return; }
    var fig = JSON.parse(source.textContent);
    var name = "corelsweb-" + div.dataset.figure.replace(/^fig-/, "");
    var options = config(name);
    // Trees zoom with the wheel and pan by dragging (their layout asks for it); other plots keep the page scrolling.
    options.scrollZoom = Boolean(fig.layout.meta && fig.layout.meta.tree);
    window.Plotly.newPlot(div, fig.data, fig.layout, options).then(function () {
      div.dataset.drawn = "1";
    });
  }

  window.corelswebFigures = {
    drawAll: function () { document.querySelectorAll("[data-figure]").forEach(draw); }
  };
  document.addEventListener("DOMContentLoaded", window.corelswebFigures.drawAll);
})();
