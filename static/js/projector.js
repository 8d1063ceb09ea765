/* The projector's standings a screen at a time (templates/admin/tournaments/round/projector.html):
   every few seconds the next screen of lines (data-screen) shows, the others are hidden. The
   standings are swapped in anew by static/js/tournament.js when they change, so each turn reads
   the table again. Without this script every line shows. */
(() => {
  "use strict";
  const EVERY = 10000;
  let shown = 1;

  function show() {
    const part = document.getElementById("projector-standings");
    if (!part) return;
    const screens = Number(part.dataset.screens || 1);
    if (shown > screens) shown = 1;
    part.querySelectorAll("tr[data-screen]").forEach((row) => {
      const hide = Number(row.dataset.screen) !== shown;
      if (row.hidden !== hide) row.hidden = hide;
    });
    const label = part.querySelector(".screen-no");
    const text = `${shown} / ${screens}`;
    if (label && label.textContent !== text) label.textContent = text; // else it observes itself
  }

  show();
  setInterval(() => {
    shown += 1;
    show();
  }, EVERY);
  // A swapped-in table shows its first screen's lines until the next turn: show ours at once.
  new MutationObserver(show).observe(document.getElementById("event") || document.body, {
    childList: true,
    subtree: true,
  });
})();
