// The page side of LivePlot (kcompact_nb/widgets/_live_plot.py): one plotly figure drawn in one element and
// redrawn there in place (Plotly.react) each time the model's `figure` changes.
//
// plotly.js is the copy JupyterLab's plotly extension (jupyterlab-plotly) already loaded for its own renderer,
// taken through the extension's module (`RenderedPlotly.Plotly`): nothing of plotly's 5 MB is sent with the
// widget. Where that extension is missing, or before plotly is ready, the element shows the figure's title and
// the step as text: never a blank box.

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

function titleOf(figure) {
  const title = figure?.layout?.title;
  return (typeof title === "string" ? title : title?.text) ?? "";
}

function render({ model, el }) {
  el.classList.add("kcompact-live-plot");
  const note = document.createElement("div");
  note.className = "kcompact-live-plot-note";
  const plot = document.createElement("div");
  plot.style.width = "100%";
  el.append(note, plot);
  let Plotly = null;
  let drawing = Promise.resolve();

  const showNote = (text) => {
    note.textContent = text;
    note.style.display = text ? "block" : "none";
  };
  const draw = () => {
    const figure = model.get("figure");
    drawing = drawing.then(async () => {
      if (!figure?.data) return;
      if (Plotly === null) {
        showNote(`${titleOf(figure).replace(/<[^>]+>/g, " ")} (the figure is drawn once plotly has loaded)`);
        return;
      }
      showNote("");
      const layout = { ...figure.layout };
      if (layout.autosize && !layout.width && plot.clientWidth > 0) layout.width = plot.clientWidth;
      await Plotly.react(plot, figure.data, layout, { displaylogo: false, ...(figure.config ?? {}) });
    });
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
    if (Plotly === null) showNote(`${titleOf(model.get("figure"))}: this front end has no plotly renderer`);
    else void draw();
  });
  return () => {
    resized.disconnect();
    model.off("change:figure", draw);
    Plotly?.purge(plot);
  };
}

export default { render };
