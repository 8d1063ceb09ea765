/* Inside an embed (templates/embed/): tells the page that frames it how tall it is, so that the
   page can size its <iframe> to the content (static/js/embed-loader.js does, or a few lines of
   the page's own).

   The message is {type: "durak-embed-height", height, id}: height in CSS pixels, id the embed's
   ?id= (the frame's id in the snippet the tournament page offers). It is sent on load, whenever
   the content's height changes (a resize of the frame's width, a live update of the standings),
   and again when the page asks ({type: "durak-embed-ask"}: its loader came after our first
   message). Any page may frame an embed, so the message goes to any origin: a height is no
   secret. */
(() => {
  "use strict";

  if (window.parent === window) return;
  const id = new URLSearchParams(window.location.search).get("id") || "";
  let last = -1;

  function post(force) {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height === last && force !== true) return;
    last = height;
    window.parent.postMessage({ type: "durak-embed-height", height, id }, "*");
  }

  window.addEventListener("load", post);
  window.addEventListener("resize", post);
  window.addEventListener("message", (event) => {
    const data = event.data;
    if (event.source === window.parent && data && data.type === "durak-embed-ask") post(true);
  });
  // The live updates (static/js/tournament.js) swap parts of the page: their size is watched.
  if ("ResizeObserver" in window) new ResizeObserver(() => post()).observe(document.documentElement);
  post();
})();
