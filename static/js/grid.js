/* The result grid of a round (templates/admin/tournaments/round/results_grid.html): Enter in a
   box moves to the next one, as Tab does (over the board a referee types from the slips with
   one hand on the keypad); Enter in the last box, or on the button, saves. Without this script
   Enter saves at once, which is no worse. */
(() => {
  "use strict";
  const form = document.getElementById("results-grid");
  if (!form) return;
  form.addEventListener("keydown", (event) => {
    const target = event.target;
    if (event.key !== "Enter" || !(target instanceof HTMLInputElement) || target.type === "submit") return;
    const boxes = Array.from(form.querySelectorAll("input:not([type=hidden]):not([disabled])"));
    const next = boxes[boxes.indexOf(target) + 1];
    if (!next || next.type === "submit") return; // the last box: Enter saves
    event.preventDefault();
    next.focus();
    if (next.type === "text") next.select();
  });
})();
