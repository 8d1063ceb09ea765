/* An open event's countdown to its planned start (templates/tournaments/_facts.html).
   Progressive enhancement: the server writes the start time (UTC) and how long until it in
   words; this script shows the start in the reader's own time zone and counts down each
   second. It reads every element on each tick, so parts the live feed swaps in keep counting.
   No inline script (the site's CSP): loaded as a file, deferred. */
(() => {
  "use strict";
  const lang = document.documentElement.lang || undefined;
  const two = (n) => String(n).padStart(2, "0");

  function localTimes() {
    document.querySelectorAll("time.local-time[datetime]").forEach((el) => {
      if (el.dataset.localised) return;
      const at = new Date(el.getAttribute("datetime"));
      if (Number.isNaN(at.getTime())) return;
      el.title = el.textContent.trim();
      el.textContent = at.toLocaleString(lang, { dateStyle: "medium", timeStyle: "short" });
      el.dataset.localised = "1";
    });
  }

  function tick() {
    localTimes();
    document.querySelectorAll("[data-countdown]").forEach((el) => {
      const at = new Date(el.dataset.countdown);
      if (Number.isNaN(at.getTime())) return;
      const left = Math.floor((at.getTime() - Date.now()) / 1000);
      if (left <= 0) {
        el.textContent = el.dataset.soon || "";
        return;
      }
      const days = Math.floor(left / 86400);
      const clock = `${two(Math.floor((left % 86400) / 3600))}:${two(Math.floor((left % 3600) / 60))}:${two(left % 60)}`;
      const text = days ? `${days} ${el.dataset.days || "d"} ${clock}` : clock;
      el.textContent = `${el.dataset.in || ""} ${text}`.trim();
    });
  }

  tick();
  setInterval(tick, 1000);
})();
