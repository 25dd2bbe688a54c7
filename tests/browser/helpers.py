"""Helpers of the browser tests that look at what a page shows: sign-in by cookie, layout probes, screenshots."""

from django.conf import settings
from django.test import Client

from tests.conftest import ARTIFACTS

WIDTH = 1280

# Words (letters, digits, _ . %) that the browser laid out over two lines: a word broken inside.
BROKEN_WORDS = """(selector) => {
  const out = [];
  document.querySelectorAll(selector).forEach((cell) => {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    let node;
    while ((node = walker.nextNode())) {
      const words = /[\\w.%]+/g;
      let m;
      while ((m = words.exec(node.data))) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const lines = new Set(Array.from(range.getClientRects()).filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (lines.size > 1) out.push(m[0]);
      }
    }
  });
  return out;
}"""

# Elements whose content is wider than the box that shows it (hidden behind a scroll bar or cut off).
CLIPPED = """(selector) => Array.from(document.querySelectorAll(selector))
  .filter((el) => el.scrollWidth > el.clientWidth + 1)
  .map((el) => (el.id || el.className) + ': ' + el.scrollWidth + ' > ' + el.clientWidth)"""

# The boxes of two parts of a drawn plotly figure, and whether they overlap.
OVERLAP = """([figure, a, b]) => {
  const root = document.querySelector(figure);
  const one = root.querySelector(a), two = root.querySelector(b);
  if (!one || !two) return 'missing ' + (one ? b : a);
  const p = one.getBoundingClientRect(), q = two.getBoundingClientRect();
  return p.left < q.right && q.left < p.right && p.top < q.bottom && q.top < p.bottom;
}"""


def signed_in_page(browser, live_server, user, width=WIDTH):
    """Return a Chromium page at ``width`` px signed in as ``user`` (the session cookie of a forced login)."""
    client = Client()
    client.force_login(user)
    context = browser.new_context(viewport={"width": width, "height": 1000})
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}])
    return context.new_page()


def open_drawn(page, url, figures=()):
    """Open ``url`` and wait until each figure selector in ``figures`` is drawn by plotly."""
    page.goto(url)
    for selector in figures:
        page.wait_for_selector(f"{selector} .main-svg", timeout=30_000)
    page.wait_for_timeout(300)
    return page


def shot(page, name):
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=True)
