/* The tournament page's "Embed on your site" box (templates/tournaments/_embed.html): a copy
   button for each snippet, and the theme chooser, which rewrites the snippets' ?theme= and
   reloads their previews (each preview is the snippet itself, sized by
   static/js/embed-loader.js). Without this script the snippets can still be selected and
   copied by hand, in the default theme. */
(() => {
  "use strict";

  const box = document.getElementById("embed");
  if (!box) return;
  const copied = box.dataset.copied || "Copied";
  const failed = box.dataset.copyFailed || "";

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

  box.querySelectorAll("button[data-copy]").forEach((button) => {
    button.hidden = false;
    const field = document.getElementById(button.dataset.copy);
    const status = button.parentElement ? button.parentElement.querySelector(".copy-status") : null;
    if (!(field instanceof HTMLTextAreaElement)) return;
    button.addEventListener("click", async () => {
      const ok = await copy(field);
      if (!status) return;
      status.textContent = ok ? copied : failed;
      setTimeout(() => (status.textContent = ""), 2500);
    });
  });

  const theme = document.getElementById("embed-theme");
  if (!(theme instanceof HTMLSelectElement)) return;
  theme.disabled = false;
  const themed = (text) => text.replace(/([?&])theme=(light|dark|auto)/g, `$1theme=${theme.value}`);
  theme.addEventListener("change", () => {
    box.querySelectorAll("textarea.snippet-code").forEach((field) => {
      field.value = themed(field.value);
    });
    box.querySelectorAll(".snippet-preview iframe").forEach((frame) => {
      frame.src = themed(frame.getAttribute("src") || "");
    });
  });
})();
