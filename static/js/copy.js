/* Copy buttons: a `button[data-copy="<field id>"]` (hidden until this script runs) copies its
   field's text. The nearest `[data-copied]` holder gives the words (data-copied, or
   data-copy-failed: how to copy by hand), said in the `.copy-status` beside the button, else in
   the holder's. Without this script the field can still be selected and copied by hand. The
   tokens page's new key and the tournament page's embed snippets use it. */
(() => {
  "use strict";

  async function copy(field) {
    try {
      await navigator.clipboard.writeText(field.value);
      return true;
    } catch {
      // No clipboard API (a page over plain http): the old way, from the selected text.
      field.select();
      try {
        return document.execCommand("copy");
      } catch {
        return false;
      }
    }
  }

  document.querySelectorAll("button[data-copy]").forEach((button) => {
    const field = document.getElementById(button.dataset.copy || "");
    if (!(field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement)) return;
    const holder = button.closest("[data-copied]");
    const status =
      (button.parentElement && button.parentElement.querySelector(".copy-status")) ||
      (holder && holder.querySelector(".copy-status"));
    button.hidden = false;
    if (field.readOnly) field.addEventListener("focus", () => field.select());
    button.addEventListener("click", async () => {
      const ok = await copy(field);
      if (!status || !holder) return;
      status.textContent = ok ? holder.dataset.copied || "" : holder.dataset.copyFailed || "";
      if (ok) setTimeout(() => (status.textContent = ""), 2500);
    });
  });
})();
