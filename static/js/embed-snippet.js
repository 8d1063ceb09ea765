/* The tournament page's "Embed on your site" box (templates/tournaments/_embed.html): the
   theme chooser (its copy buttons: static/js/copy.js), which rewrites the snippets' ?theme= and
   reloads their previews (each preview is the snippet itself, sized by
   static/js/embed-loader.js). Without this script the snippets can still be selected and
   copied by hand, in the default theme. */
(() => {
  "use strict";

  const box = document.getElementById("embed");
  if (!box) return;

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
