// The page side of LivePlot (kcompact_nb/widgets/_figures.py): one plotly figure redrawn in place (Plotly.react).
// plotly.js is the copy JupyterLab's plotly extension already loaded (`RenderedPlotly.Plotly`); without it, or
// before it is ready, the element shows the figure's title as text. Figures sent ahead ({ahead: [figure, ...]}) are
// drawn out of sight once the page is idle, and kept a while; a `figure` with the id of one is shown by moving its
// element in.

const MIME = "application/vnd.plotly.v1+json";
// Figures drawn out of sight kept beyond those sent ahead last, those drawn or shown least lately let go first: a step
// or an edit back to a figure seen lately shows it by moving it in (issue #41).
const KEPT_DRAWN = 6;

let plotly = null;

async function loadPlotly() {
  if (plotly === null) {
    plotly = (async () => {
      const container = window._JUPYTERLAB?.["jupyterlab-plotly"];
      if (!container) return window.Plotly ?? null;
      const { RenderedPlotly } = (await container.get("./index"))();
      if (RenderedPlotly.Plotly === null) {
        // plotly.js loads with the extension's first figure: draw an empty one, out of sight
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

// Where figures drawn ahead wait, outside every output (one for the page).
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

// The figure's title and subtitle as plain text.
function titleOf(figure) {
  const title = figure?.layout?.title;
  const texts = typeof title === "string" ? [title] : [title?.text, title?.subtitle?.text];
  return texts.filter(Boolean).map((text) => text.replace(/<br>/g, " ").replace(/<[^>]+>/g, "")).join(" · ");
}

// The layout paths (dotted, as `Plotly.relayout` takes them) on which `after` differs from `before`, when their data and
// config are the same; else null. `Plotly.react` re-plots a whole figure whenever its data arrays are new, where
// `Plotly.relayout` of those paths redraws only what they change: a what-if side an edit did not change, drawn again
// on a scale the edit moved, is a new axis range (5-10 ms against 30-50 for the re-plot in a bare page).
function layoutChanges(before, after) {
  if (!sameJson(before.data, after.data) || !sameJson(before.config, after.config)) return null;
  const changes = {};
  const walk = (was, now, path) => {
    for (const key of new Set([...Object.keys(was), ...Object.keys(now)])) {
      const [a, b] = [was[key], now[key]];
      if (isObject(a) && isObject(b)) walk(a, b, `${path}${key}.`);
      else if (!sameJson(a, b)) changes[`${path}${key}`] = b === undefined ? null : b;
    }
  };
  walk(before.layout ?? {}, after.layout ?? {}, "");
  return changes;
}

function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function sameJson(a, b) {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((value, i) => sameJson(value, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => key in b && sameJson(a[key], b[key]));
}

// The width `plot` is shown at, its hidden ancestors (display none) shown for the measure (no frame is painted).
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
  const drawnFrom = new WeakMap(); // node -> {figure, width}: the figure (as sent) a node was drawn from, and how wide

  // A figure's element let go: its plot purged, the element out of the page.
  const discard = (node) => {
    Plotly?.purge(node);
    node.remove();
  };
  const showNote = (text) => {
    note.textContent = text;
    note.style.display = text ? "block" : "none";
  };
  // Plotly.react's arguments for `figure` drawn `width` px wide: copies, as plotly writes into what it is given (an
  // axis' type and range) and `figure` must stay as sent, to be compared with the next (layoutChanges).
  const plotted = (figure, width) => {
    const layout = structuredClone(figure.layout ?? {});
    if (layout.autosize && !layout.width && width > 0) layout.width = width;
    return [structuredClone(figure.data), layout, { displaylogo: false, ...(figure.config ?? {}) }];
  };

  // The element drawn ahead as `id` takes the place of `plot`, which waits out of sight in turn.
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

  // Draws run one at a time; of several asked for meanwhile only the last runs.
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
          const before = drawnFrom.get(plot);
          const changes = before?.width === plot.clientWidth ? layoutChanges(before.figure, figure) : null;
          if (changes === null) await Plotly.react(plot, ...plotted(figure, plot.clientWidth));
          else if (Object.keys(changes).length > 0) await Plotly.relayout(plot, changes);
          drawnFrom.set(plot, { figure, width: plot.clientWidth });
        }
        shown = figure.id ?? null;
        scheduleAhead();
      })
      .catch((error) => showNote(`${titleOf(model.get("figure"))} (not drawn: ${error})`));
    return drawing;
  };

  // Once painted and idle, draw the figures sent ahead not drawn at this width, one at a time (a draw asked for
  // meanwhile goes first); of the others, keep the KEPT_DRAWN drawn or shown last.
  const scheduleAhead = () => {
    const ticket = asked;
    const idle = window.requestIdleCallback ?? ((callback) => setTimeout(callback, 50));
    requestAnimationFrame(() => idle(() => void drawAhead(ticket), { timeout: 500 }));
  };
  const drawAhead = async (ticket) => {
    const wanted = new Set(ahead.map((figure) => figure.id));
    const drop = (id) => {
      discard(drawnAhead.get(id).node);
      drawnAhead.delete(id);
    };
    if (drawnAhead.has(shown)) drop(shown);
    const others = [...drawnAhead.keys()].filter((id) => !wanted.has(id)); // drawn or shown least lately first
    others.slice(0, Math.max(others.length - KEPT_DRAWN, 0)).forEach(drop);
    const at = shownWidth(plot);
    for (const figure of ahead) {
      if (ticket !== asked || at === 0) return;
      if (figure.id === shown || drawnAhead.get(figure.id)?.width === at) continue;
      const node = drawnAhead.get(figure.id)?.node ?? document.createElement("div");
      drawnAhead.delete(figure.id);
      node.style.width = `${at}px`;
      offstage().appendChild(node);
      drawing = drawing
        .then(async () => {
          if (ticket !== asked) return discard(node);
          await Plotly.react(node, ...plotted(figure, at));
          drawnAhead.set(figure.id, { node, width: at });
          drawnFrom.set(node, { figure, width: at });
        })
        .catch(() => discard(node));
      await drawing;
      await new Promise((resolve) => setTimeout(resolve, 0)); // a click's message goes between two draws
    }
  };
  const onMessage = (message) => {
    if (!Array.isArray(message?.ahead)) return;
    ahead = message.ahead;
    if (Plotly !== null) scheduleAhead();
  };

  // Drawn again when shown after being hidden, or resized.
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
    model.send({ ask: "ahead" }); // figures sent ahead before this view existed
  } catch {
    // a saved view: no kernel
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
    for (const { node } of drawnAhead.values()) discard(node);
    drawnAhead.clear();
  };
}

export default { render };
