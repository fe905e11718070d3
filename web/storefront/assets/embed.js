// shopd's buy button for any website (docs/storefront.md, "Embeds"). Paste where the button goes:
//
//   <a href="https://SHOP/s/SUBDOMAIN/products/PRODUCT" data-shopd-embed>Buy PRODUCT</a>
//   <script src="https://SHOP/embed.js" async></script>
//
// or, with a button made by the script (and the link above in a <noscript> for browsers without it):
//
//   <script src="https://SHOP/embed.js" data-shop="SUBDOMAIN" data-product="PRODUCT" data-label="Buy" async></script>
//
// Without script the link opens the product page. With it, a click opens the product's checkout
// in an overlay (an iframe of the shop's `/embed/…` pages, the only pages of a shop another site
// may frame). When the buyer places the order, and again when it is paid, the frame tells this
// page; the link (or button) then fires a `shopd:order` event that bubbles, its `detail` being
// `{ status, invoiceId, url }` (status `pending`, then `completed`, `expired` or `cancelled`):
//
//   document.addEventListener('shopd:order', (e) => { if (e.detail.status === 'completed') … });
//
// Messages are taken only from the frame this script opened, and only from the shop's origin.
(() => {
  const script = document.currentScript;
  if (!script?.src) return;
  const origin = new URL(script.src).origin;
  const STYLE_ID = 'shopd-embed-style';

  function addStyle() {
    if (document.getElementById(STYLE_ID)) return;
    const style = document.createElement('style');
    style.id = STYLE_ID;
    style.textContent =
      '.shopd-embed-backdrop{position:fixed;inset:0;z-index:2147483000;background:rgba(15,17,26,.6);display:flex;' +
      'align-items:center;justify-content:center;padding:1rem}' +
      '.shopd-embed-dialog{position:relative;width:min(560px,100%);height:min(760px,100%);background:#fff;' +
      'border-radius:12px;overflow:hidden;box-shadow:0 20px 60px rgba(0,0,0,.35)}' +
      '.shopd-embed-dialog iframe{width:100%;height:100%;border:0;display:block}' +
      '.shopd-embed-close{position:absolute;top:.5rem;right:.5rem;z-index:1;width:2.25rem;height:2.25rem;' +
      'border:0;border-radius:999px;background:rgba(0,0,0,.65);color:#fff;font:600 1.1rem/1 system-ui,sans-serif;cursor:pointer}' +
      '.shopd-embed-close:focus-visible{outline:3px solid #6b7bff;outline-offset:2px}' +
      '.shopd-embed-button{display:inline-block;padding:.6rem 1.1rem;border-radius:8px;background:#4f46e5;color:#fff;' +
      'font:600 1rem/1.2 system-ui,sans-serif;text-decoration:none}';
    document.head.appendChild(style);
  }

  /** The shop's embed page of a product link: `/s/shop/products/p` → `/s/shop/embed/products/p`. */
  function embedUrl(link) {
    const url = new URL(link.href, document.baseURI);
    if (url.origin !== origin) return null;
    const path = url.pathname.replace(/\/products\/([^/]+)\/?$/, '/embed/products/$1');
    return path === url.pathname ? null : `${origin}${path}`;
  }

  function open(link, src) {
    addStyle();
    const opener = document.activeElement;
    const backdrop = document.createElement('div');
    backdrop.className = 'shopd-embed-backdrop';
    const dialog = document.createElement('div');
    dialog.className = 'shopd-embed-dialog';
    dialog.setAttribute('role', 'dialog');
    dialog.setAttribute('aria-modal', 'true');
    dialog.setAttribute('aria-label', link.textContent.trim() || 'Checkout');
    const close = document.createElement('button');
    close.type = 'button';
    close.className = 'shopd-embed-close';
    close.setAttribute('aria-label', 'Close');
    close.textContent = '×';
    const frame = document.createElement('iframe');
    frame.src = src;
    frame.title = link.textContent.trim() || 'Checkout';
    frame.setAttribute('allow', 'payment');
    dialog.append(close, frame);
    backdrop.appendChild(dialog);
    document.body.appendChild(backdrop);

    const onMessage = (event) => {
      if (event.origin !== origin || event.source !== frame.contentWindow) return;
      const data = event.data;
      if (data?.type === 'shopd:close') {
        shut();
        return;
      }
      if (data?.type !== 'shopd:order' || typeof data.status !== 'string') return;
      link.dispatchEvent(
        new CustomEvent('shopd:order', {
          bubbles: true,
          detail: { status: data.status, invoiceId: String(data.invoiceId || ''), url: String(data.url || '') },
        }),
      );
    };
    const onKey = (event) => {
      if (event.key === 'Escape') shut();
    };
    function shut() {
      window.removeEventListener('message', onMessage);
      document.removeEventListener('keydown', onKey);
      backdrop.remove();
      if (opener && typeof opener.focus === 'function') opener.focus();
    }
    window.addEventListener('message', onMessage);
    document.addEventListener('keydown', onKey);
    close.addEventListener('click', shut);
    backdrop.addEventListener('click', (event) => {
      if (event.target === backdrop) shut();
    });
    close.focus();
  }

  function enhance(link) {
    if (link.dataset.shopdEmbedReady) return;
    const src = embedUrl(link);
    if (!src) return;
    link.dataset.shopdEmbedReady = 'true';
    link.addEventListener('click', (event) => {
      if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
      event.preventDefault();
      open(link, src);
    });
  }

  // The script's own button, from its data attributes.
  const { shop, product, label } = script.dataset;
  if (shop && product) {
    addStyle();
    const link = document.createElement('a');
    link.className = 'shopd-embed-button';
    link.href = `${origin}/s/${encodeURIComponent(shop)}/products/${encodeURIComponent(product)}`;
    link.textContent = label || 'Buy now';
    script.insertAdjacentElement('beforebegin', link);
    enhance(link);
  }
  for (const link of document.querySelectorAll('a[data-shopd-embed]')) enhance(link);
})();
