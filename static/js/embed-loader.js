/* The Durak embeds' loader, for the page that frames them (the snippet on a tournament page
   includes it; static/js/embed-snippet.js, tournaments/site/events/snippets.py). It sizes every
   <iframe> of our embeds to its content: an embed posts its height (static/js/embed.js,
   {type: "durak-embed-height", height, id}), and the frame it came from, recognised by its
   window, not by a name another frame could claim, takes that height. Only our origin, the
   origin this script came from, is listened to.

   Pasted twice (the standings and the bracket), it runs once. No dependencies, no globals but
   the one that says it ran. */
(() => {
  "use strict";

  if (window.durakEmbedLoader) return;
  window.durakEmbedLoader = true;

  const script = document.currentScript;
  const origin = script && script.src ? new URL(script.src, window.location.href).origin : null;
  const MAX = 20000; // a sanity cap: no page wants a frame taller than this

  window.addEventListener("message", (event) => {
    const data = event.data;
    if (!data || data.type !== "durak-embed-height") return;
    if (origin && event.origin !== origin) return;
    const height = Number(data.height);
    if (!Number.isFinite(height) || height <= 0) return;
    const frame = Array.from(document.getElementsByTagName("iframe")).find(
      (f) => f.contentWindow === event.source,
    );
    if (frame) frame.style.height = `${Math.min(Math.ceil(height), MAX)}px`;
  });

  // An embed that loaded before this script posted its height to nobody: ask again.
  function ask() {
    Array.from(document.getElementsByTagName("iframe")).forEach((frame) => {
      if (frame.contentWindow) frame.contentWindow.postMessage({ type: "durak-embed-ask" }, origin || "*");
    });
  }
  ask();
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ask);
})();
