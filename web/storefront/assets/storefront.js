// The storefront's only script: conveniences on pages that work without it.
// - [data-copy="<element id>"] buttons copy that element's text, or its [data-value] when it has one
//   (an amount shown as "4,50 $" copies as the number a payment app takes), and say so in the
//   page's language ([data-copied]). They are rendered hidden (without script they would do
//   nothing) and shown here where the browser can copy.
// - [data-countdown="<seconds>"] shows the time left (H:MM:SS), counted from when the page came,
//   so a wrong clock on the buyer's computer does not matter.
// - [data-status-url] with [data-status]: while the page is visible, asks that URL for `{ status }`
//   every few seconds and reloads the page when the status is no longer the one shown. (Without
//   script, the page reloads itself by a <meta http-equiv="refresh"> in <noscript>.)
// - [data-cart-count] (the header's cart link) shows how many products the cart holds, read from
//   its cookie (web/storefront/cart.ts): pages are cached alike for everyone, so the server cannot.

document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
  if (!button) return;
  const source = document.getElementById(button.getAttribute('data-copy') || '');
  if (!source || !navigator.clipboard) return;
  navigator.clipboard.writeText(source.getAttribute('data-value') ?? (source.textContent || '')).then(() => {
    const label = button.textContent;
    button.textContent = button.getAttribute('data-copied') || 'Copied';
    setTimeout(() => {
      button.textContent = label;
    }, 1500);
  });
});

if (navigator.clipboard) {
  for (const button of document.querySelectorAll('[data-copy][hidden]')) button.hidden = false;
}

// The invoice page's countdown. (Each feature in its own block: top-level names of a classic script are shared.)
{
  const countdowns = Array.from(document.querySelectorAll('[data-countdown]'), (el) => ({
    el,
    end: Date.now() + Number(el.getAttribute('data-countdown')) * 1000,
  }));
  if (countdowns.length > 0) {
    const two = (n) => String(n).padStart(2, '0');
    const clock = (s) => {
      const h = Math.floor(s / 3600);
      const m = Math.floor((s % 3600) / 60);
      return h > 0 ? `${h}:${two(m)}:${two(s % 60)}` : `${m}:${two(s % 60)}`;
    };
    const tick = () => {
      for (const c of countdowns) c.el.textContent = clock(Math.max(0, Math.round((c.end - Date.now()) / 1000)));
    };
    setInterval(tick, 1000);
  }
}

// The invoice page's status poll.
{
  const watched = document.querySelector('[data-status-url]');
  if (watched && window.fetch) {
    const url = watched.getAttribute('data-status-url');
    const shown = watched.getAttribute('data-status');
    const POLL_MS = 4000;
    let timer = 0;
    const schedule = () => {
      clearTimeout(timer);
      if (!document.hidden) timer = setTimeout(poll, POLL_MS);
    };
    const poll = () => {
      fetch(url, { headers: { accept: 'application/json' }, cache: 'no-store', credentials: 'same-origin' })
        .then((res) => (res.status === 404 ? undefined : res.ok ? res.json() : {}))
        .then((body) => {
          if (body === undefined) return; // the invoice is gone: nothing more to follow
          if (body.status && body.status !== shown) window.location.reload();
          else schedule();
        }, schedule);
    };
    document.addEventListener('visibilitychange', () => {
      clearTimeout(timer);
      if (!document.hidden) poll();
    });
    schedule();
  }
}

// A form marked data-submit-once (the checkout) is sent once: a double click places one order.
document.addEventListener('submit', (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.hasAttribute('data-submit-once')) return;
  if (form.dataset.sent === 'yes') {
    event.preventDefault();
    return;
  }
  form.dataset.sent = 'yes';
  for (const button of form.querySelectorAll('button[type="submit"]')) button.setAttribute('aria-disabled', 'true');
});

// An embed page: Escape inside the frame asks the website's overlay to close (its own key events
// never reach the page around the frame).
if (document.body.classList.contains('embedded') && window.parent !== window) {
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') window.parent.postMessage({ type: 'shopd:close' }, '*');
  });
}

// An embed page's order (pages/invoice.tsx #embed-order): tells the website whose buy button framed
// this page (assets/embed.js) the order and its status, each time the page shows it. Nothing else
// of the buyer goes to the parent: the status, the order id and its page's address.
{
  const order = document.getElementById('embed-order');
  if (order && window.parent !== window) {
    window.parent.postMessage(
      {
        type: 'shopd:order',
        status: order.getAttribute('data-status'),
        invoiceId: order.getAttribute('data-invoice'),
        url: order.getAttribute('data-url'),
      },
      '*',
    );
  }
}

// The header's cart link: the number of products in the cart (its cookie: {"l":[[product, variant, quantity], …]}).
{
  const count = document.querySelector('[data-cart-count]');
  const stored = document.cookie.split('; ').find((c) => c.startsWith('shopd_cart='));
  if (count && stored) {
    try {
      const lines = JSON.parse(decodeURIComponent(stored.slice('shopd_cart='.length))).l;
      if (Array.isArray(lines) && lines.length > 0) {
        count.textContent = `(${lines.length})`;
        count.hidden = false;
      }
    } catch {
      // A damaged cookie: the link alone (the cart page drops what it cannot read).
    }
  }
}
