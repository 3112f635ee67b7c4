// The page side of LivePlot (kcompact_nb/widgets/_figures.py): one plotly figure drawn in one element and
// redrawn there in place (Plotly.react) each time the model's `figure` changes.
//
// plotly.js is the copy JupyterLab's plotly extension (jupyterlab-plotly) already loaded for its own renderer,
// taken through the extension's module (`RenderedPlotly.Plotly`): nothing of plotly's 5 MB is sent with the
// widget. Where that extension is missing, or before plotly is ready, the element shows the figure's title and
// subtitle as text: never a blank box.

const MIME = "application/vnd.plotly.v1+json";

let plotly = null;

async function loadPlotly() {
  if (plotly === null) {
    plotly = (async () => {
      const container = window._JUPYTERLAB?.["jupyterlab-plotly"];
      if (!container) return window.Plotly ?? null;
      const { RenderedPlotly } = (await container.get("./index"))();
      if (RenderedPlotly.Plotly === null) {
        // The extension loads plotly.js on its first figure: draw an empty one, out of sight.
        const first = new RenderedPlotly({ mimeType: MIME });
        first.node.style.display = "none";
        document.body.appendChild(first.node);
        await first.renderModel({ data: { [MIME]: { data: [], layout: {} } }, setData() {} });
        first.node.remove();
        first.dispose();
      }
      return RenderedPlotly.Plotly;
    })().catch(() => window.Plotly ?? null);
  }
  return plotly;
}

// The figure's title and subtitle as plain text: what the element says while it cannot draw the figure.
function titleOf(figure) {
  const title = figure?.layout?.title;
  const texts = typeof title === "string" ? [title] : [title?.text, title?.subtitle?.text];
  return texts.filter(Boolean).map((text) => text.replace(/<br>/g, " ").replace(/<[^>]+>/g, "")).join(" · ");
}

function render({ model, el }) {
  el.classList.add("kcompact-live-plot");
  const note = document.createElement("div");
  note.className = "kcompact-live-plot-note";
  const plot = document.createElement("div");
  plot.style.width = "100%";
  el.append(note, plot);
  let Plotly = null;
  let loading = true;
  let drawing = Promise.resolve();

  const showNote = (text) => {
    note.textContent = text;
    note.style.display = text ? "block" : "none";
  };
  // Draws run one at a time; one asked for while another runs draws the figure as it is then, and only the
  // last of several asked for meanwhile runs (clicks faster than plotly draws skip the steps in between).
  let asked = 0;
  const draw = () => {
    const ticket = ++asked;
    drawing = drawing
      .then(async () => {
        const figure = model.get("figure");
        if (ticket !== asked || !figure?.data) return;
        if (Plotly === null) {
          const why = loading ? "drawn once plotly has loaded" : "not drawn: this front end has no plotly renderer";
          showNote(`${titleOf(figure)} (${why})`);
          return;
        }
        showNote("");
        const layout = { ...figure.layout };
        if (layout.autosize && !layout.width && plot.clientWidth > 0) layout.width = plot.clientWidth;
        await Plotly.react(plot, figure.data, layout, { displaylogo: false, ...(figure.config ?? {}) });
      })
      .catch((error) => showNote(`${titleOf(model.get("figure"))} (not drawn: ${error})`));
    return drawing;
  };
  // Drawn at the width it is shown at: again when it is shown after being hidden, or its area is resized.
  let width = 0;
  const resized = new ResizeObserver(() => {
    if (plot.clientWidth > 0 && plot.clientWidth !== width) {
      width = plot.clientWidth;
      void draw();
    }
  });
  resized.observe(plot);
  model.on("change:figure", draw);
  void draw();
  loadPlotly().then((loaded) => {
    Plotly = loaded;
    loading = false;
    void draw();
  });
  return () => {
    resized.disconnect();
    model.off("change:figure", draw);
    Plotly?.purge(plot);
  };
}

export default { render };
