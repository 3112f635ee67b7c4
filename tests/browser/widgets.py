"""What a stepper or a what-if explorer shows in the page, and what its Python object says it should show.

The page side reads the visible texts (the stepper's header, the offset map's title and the stats heading;
the explorer's panel headings and its figures' titles) and counts the figures shown but not drawn
(a blank figure); there must be none. The Python side runs in the notebook's
kernel: it finds the notebook's widget object and prints the same texts from its state.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

SYNC_TIMEOUT_S = 30.0

# Runs `code` in the notebook's kernel (not stored in its history) and returns what it printed.
KERNEL_JS = """
async (code) => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const future = kernel.requestExecute({code, silent: false, store_history: false});
  let text = '';
  future.onIOPub = (msg) => {
    if (msg.header.msg_type === 'stream') text += msg.content.text;
    if (msg.header.msg_type === 'error') text += `${msg.content.ename}: ${msg.content.evalue}`;
  };
  await future.done;
  return text;
}
"""

# The texts the notebook's (last) stepper or explorer holds, as a reader should see them.
PYTHON_STATE = """
import gc as _gc, html as _html, json as _json, re as _re
from kcompact_nb.widgets import CompactionStepper as _Stepper, WhatIfExplorer as _Explorer

def _plain(markup):
    return _html.unescape(_re.sub(r"<[^>]+>", "", _re.sub(r"<br>", "\\n", markup))).strip()

def _widget_state():
    widget = [o for o in _gc.get_objects() if isinstance(o, (_Stepper, _Explorer))][-1]
    drawn = {"undrawn": 0}  # every figure shown is drawn
    if isinstance(widget, _Explorer):
        return {
            "headings": [panel.title for panel in (widget.left, widget.right)],
            "titles": [figure.layout.title.text.replace("<br>", "") for figure in widget.figures],
            **drawn,
        }
    shown = widget.latest_pass.layout.display != "none"
    return {
        "header": _plain(widget.status.value),
        "layout_title": widget.layout_figure.layout.title.text,
        "map_title": widget.offset_map_figure.layout.title.text if shown else None,
        "stats": _plain(widget.stats.value).split("LogCleaner INFO message")[0] if shown else None,
        "message": _plain(widget.config.message.value),
        **drawn,
    }

print(_json.dumps(_widget_state()))
"""

# The same texts read from the page, in the output that holds the widget.
PAGE_STATE_JS = """
(output) => {
  const visible = (node) => node != null && node.offsetParent !== null;
  const titleOf = (plot) => plot?.querySelector('.gtitle')?.textContent ?? null;
  const plots = Array.from(output.querySelectorAll('.js-plotly-plot'));
  const drawn = {
    undrawn: plots.filter(visible).filter((p) => !p.querySelector('.main-svg') || !p.querySelector('.trace')).length,
  };
  const htmls = Array.from(output.querySelectorAll('.widget-html-content')).filter(visible);
  const text = (node) => node?.innerText.trim() ?? '';
  if (!output.querySelector('.widget-button')) {
    const headings = htmls.filter((node) => node.innerText.includes("Apache Kafka's properties, checked as"))
      .map((node) => node.querySelector('b')?.textContent ?? '');
    return {
      headings: headings.slice(0, 2),
      titles: plots.filter(visible).map(titleOf),
      ...drawn,
    };
  }
  const stats = htmls.find((node) => node.innerText.startsWith('Latest pass:'));
  const message = htmls.find((node) => node.innerText.startsWith('Not applied'));
  return {
    header: text(htmls[0]),
    layout_title: titleOf(plots[0]),
    map_title: visible(plots[1]) ? titleOf(plots[1]) : null,
    stats: stats ? text(stats).split('LogCleaner INFO message')[0].trim() : null,
    message: text(message),
    ...drawn,
  };
}
"""

# An output wider than its area, figures drawn at another width than their element, a title over its subtitle.
FIT_PROBLEMS_JS = """
(output) => [
  ...(output.scrollWidth > output.clientWidth ? [`${output.scrollWidth} px wide in ${output.clientWidth} px`] : []),
  ...Array.from(output.querySelectorAll('.js-plotly-plot')).filter((p) => p.offsetParent !== null)
  .flatMap((plot, number) => {
    const found = [];
    if (Math.abs(plot._fullLayout.width - plot.clientWidth) > 2)
      found.push(`figure ${number}: drawn ${plot._fullLayout.width} px wide in ${plot.clientWidth} px`);
    const title = plot.querySelector('.gtitle')?.getBoundingClientRect();
    const subtitle = plot.querySelector('.gtitle-subtitle')?.getBoundingClientRect();
    if (title && subtitle && title.bottom > subtitle.top + 1)
      found.push(`figure ${number}: title (bottom ${title.bottom}) over its subtitle (top ${subtitle.top})`);
    return found;
  }),
]
"""


def python_state(page: Page) -> dict[str, Any]:
    """The texts the notebook's widget object holds (run in its kernel)."""
    printed: str = page.evaluate(KERNEL_JS, PYTHON_STATE)
    try:
        state: dict[str, Any] = json.loads(printed)
    except json.JSONDecodeError as error:
        raise AssertionError(f"the kernel printed {printed!r}") from error
    return state


def page_state(output: Locator) -> dict[str, Any]:
    """The same texts as the page shows them."""
    state: dict[str, Any] = output.evaluate(PAGE_STATE_JS)
    return state


def synced(page: Page, output: Locator) -> tuple[dict[str, Any], dict[str, Any]]:
    """Wait until the page shows what the kernel's widget holds; ``(python, page)`` (unequal after a timeout).

    Both sides are read again each time: an edit typed in the page may reach the kernel after the first read.
    """
    deadline = time.monotonic() + SYNC_TIMEOUT_S
    while True:
        expected, shown = python_state(page), page_state(output)
        if shown == expected or time.monotonic() > deadline:
            return expected, shown
        page.wait_for_timeout(200)


def fit_problems(output: Locator) -> list[str]:
    found: list[str] = output.evaluate(FIT_PROBLEMS_JS)
    return found
