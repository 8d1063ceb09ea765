/* A round's paper (templates/admin/tournaments/round/paper_base.html): the toolbar's Print button.
   The page prints without it (the browser's own Print). */
(() => {
  "use strict";
  document.querySelectorAll("[data-print]").forEach((button) => {
    button.addEventListener("click", () => window.print());
  });
})();
