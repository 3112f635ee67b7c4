// The page side of LivePlot (kcompact_nb/widgets/_figures.py): one plotly figure drawn in one element and
// redrawn there in place (Plotly.react) each time the model's `figure` changes.
//
// plotly.js is the copy JupyterLab's plotly extension (jupyterlab-plotly) already loaded for its own renderer,
// taken through the extension's module (`RenderedPlotly.Plotly`): nothing of plotly's 5 MB is sent with the
// widget. Where that extension is missing, or before plotly is ready, the element shows the figure's title and
// subtitle as text: never a blank box.
//
// Figures drawn ahead: the kernel sends the figures a next click may show (a custom message {ahead: [figure, ...]},
// each figure with the `id` of its content; again when a new view asks for them). Once the page is idle they are drawn out of sight, at the width of
// the element; a `figure` whose id was drawn ahead is shown by moving its element in, without drawing it again
// (a plotly draw takes 40-150 ms of a 2-core machine's browser; moving an element, a few).

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

// Where figures drawn ahead wait, out of sight and out of every notebook output (one for the page).
function offstage() {
  let stage = document.getElementById("kcompact-live-plot-offstage");
  if (stage === null) {
    stage = document.createElement("div");
    stage.id = "kcompact-live-plot-offstage";
    stage.setAttribute("aria-hidden", "true");
    Object.assign(stage.style, { position: "fixed", left: "-20000px", top: "0", visibility: "hidden" });
    document.body.appendChild(stage);
  }
  return stage;
}

// The figure's title and subtitle as plain text: what the element says while it cannot draw the figure.
function titleOf(figure) {
  const title = figure?.layout?.title;
  const texts = typeof title === "string" ? [title] : [title?.text, title?.subtitle?.text];
  return texts.filter(Boolean).map((text) => text.replace(/<br>/g, " ").replace(/<[^>]+>/g, "")).join(" · ");
}

// The width `plot` is shown at. While an ancestor hidden by its style (an ipywidgets box with display none) hides
// it, measured with those ancestors shown for the time of the measure: no frame is painted meanwhile.
function shownWidth(plot) {
  const hidden = [];
  for (let node = plot; node !== null && plot.clientWidth === 0; node = node.parentElement) {
    if (node.style.display === "none") {
      hidden.push(node);
      node.style.display = "";
    }
  }
  const width = plot.clientWidth;
  for (const node of hidden) node.style.display = "none";
  return width;
}

function render({ model, el }) {
  el.classList.add("kcompact-live-plot");
  const note = document.createElement("div");
  note.className = "kcompact-live-plot-note";
  let plot = document.createElement("div");
  plot.style.width = "100%";
  el.append(note, plot);
  let Plotly = null;
  let loading = true;
  let drawing = Promise.resolve();
  let shown = null; // the id of the figure in `plot`
  let ahead = []; // the figures the kernel sent last as likely next
  const drawnAhead = new Map(); // id -> {node, width}: figures drawn ahead, out of sight

  const showNote = (text) => {
    note.textContent = text;
    note.style.display = text ? "block" : "none";
  };
  const sized = (figure, width) => {
    const layout = { ...figure.layout };
    if (layout.autosize && !layout.width && width > 0) layout.width = width;
    return layout;
  };
  const config = (figure) => ({ displaylogo: false, ...(figure.config ?? {}) });

  // Show the figure drawn ahead as `id`: its element takes the place of `plot`, which waits out of sight in turn
  // (a click back shows it again).
  const bringIn = (id) => {
    const { node } = drawnAhead.get(id);
    drawnAhead.delete(id);
    node.style.width = "100%";
    resized.unobserve(plot);
    plot.replaceWith(node);
    if (shown !== null) {
      plot.style.width = `${width}px`;
      offstage().appendChild(plot);
      drawnAhead.set(shown, { node: plot, width });
    } else {
      Plotly.purge(plot);
    }
    plot = node;
    resized.observe(plot);
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
        width = plot.clientWidth || width;
        const ready = drawnAhead.get(figure.id);
        if (figure.id !== undefined && figure.id !== shown && ready?.width === width && width > 0) {
          bringIn(figure.id);
        } else {
          await Plotly.react(plot, figure.data, sized(figure, plot.clientWidth), config(figure));
        }
        shown = figure.id ?? null;
        scheduleAhead();
      })
      .catch((error) => showNote(`${titleOf(model.get("figure"))} (not drawn: ${error})`));
    return drawing;
  };

  // Once the page has painted and is idle, draw the figures sent ahead that are not drawn yet at this width, one
  // at a time (a draw asked for meanwhile goes first), and let go of the others.
  const scheduleAhead = () => {
    const ticket = asked;
    const idle = window.requestIdleCallback ?? ((callback) => setTimeout(callback, 50));
    requestAnimationFrame(() => idle(() => void drawAhead(ticket), { timeout: 500 }));
  };
  const drawAhead = async (ticket) => {
    const wanted = new Set(ahead.map((figure) => figure.id));
    for (const [id, { node }] of drawnAhead) {
      if (!wanted.has(id) || id === shown) {
        Plotly.purge(node);
        node.remove();
        drawnAhead.delete(id);
      }
    }
    const at = shownWidth(plot);
    for (const figure of ahead) {
      if (ticket !== asked || at === 0) return;
      if (figure.id === shown || drawnAhead.get(figure.id)?.width === at) continue;
      const node = drawnAhead.get(figure.id)?.node ?? document.createElement("div");
      drawnAhead.delete(figure.id);
      node.style.width = `${at}px`;
      offstage().appendChild(node);
      const letGo = () => {
        Plotly.purge(node);
        node.remove();
      };
      drawing = drawing
        .then(async () => {
          if (ticket !== asked) return letGo();
          await Plotly.react(node, figure.data, sized(figure, at), config(figure));
          drawnAhead.set(figure.id, { node, width: at });
        })
        .catch(letGo);
      await drawing;
      await new Promise((resolve) => setTimeout(resolve, 0)); // a click's message goes in between two draws
    }
  };
  const onMessage = (message) => {
    if (!Array.isArray(message?.ahead)) return;
    ahead = message.ahead;
    if (Plotly !== null) scheduleAhead();
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
  model.on("msg:custom", onMessage);
  try {
    model.send({ ask: "ahead" }); // figures sent ahead before this view existed were lost: ask for them again
  } catch {
    // a saved view, without a kernel: nothing comes ahead
  }
  void draw();
  loadPlotly().then((loaded) => {
    Plotly = loaded;
    loading = false;
    void draw();
  });
  return () => {
    resized.disconnect();
    model.off("change:figure", draw);
    model.off("msg:custom", onMessage);
    Plotly?.purge(plot);
    for (const { node } of drawnAhead.values()) {
      Plotly?.purge(node);
      node.remove();
    }
    drawnAhead.clear();
  };
}

export default { render };
