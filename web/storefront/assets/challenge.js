// Registers the worker that solves the proof-of-work challenge with the ALTCHA widget. The widget's
// build without inline workers is served (the pages' CSP allows scripts and workers from this origin
// only, no blob: workers), so it is told where its worker is: the page names it, since the worker's
// file name carries a hash of its bytes.
{
  const widget = document.querySelector('altcha-widget[data-worker]');
  if (widget && globalThis.$altcha) {
    const url = widget.getAttribute('data-worker');
    globalThis.$altcha.algorithms.set('PBKDF2/SHA-256', () => new Worker(url));
  }
}
