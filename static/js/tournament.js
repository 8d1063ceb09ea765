/* The tournament page, and its embeds, kept live (templates/tournaments/tournament.html,
   templates/embed/).

   The page is complete without this script. With it, the page listens to the tournament's feed
   (/ws/tournaments/<slug>/: {"type": "hello", "version"}, then {"type": "event", "version", ...}
   for every change; tournaments/consumers.py) and, when a version newer than the page's arrives,
   fetches the page again and swaps in the parts that changed (elements with an id marked
   data-live, or inside them data-live-part), leaving the rest alone: scrolling, focus and the
   rounds the reader opened or closed survive. Events that come in bursts (a round's tables
   finishing together) are fetched once. Opening a collapsed round whose tables were not sent
   fetches them the same way (the page with ?round=<id> for every open round), instead of
   following the link. */
(() => {
  "use strict";

  const root = document.getElementById("event");
  if (!root || !root.dataset.feed || !("WebSocket" in window) || !window.fetch) return;

  const indicator = document.getElementById("live");
  const indicatorText = indicator ? indicator.querySelector(".live-text") : null;
  const text = {
    on: root.dataset.liveOn || "Live",
    off: root.dataset.liveOff || "Reconnecting…",
    updated: root.dataset.liveUpdated || "Updated",
    loading: root.dataset.loading || "Loading…",
    failed: root.dataset.loadFailed || "",
  };
  let version = Number(root.dataset.version || 0);

  // The server's last HTML of each part, to swap only the parts that changed.
  const known = new Map();
  const remember = (scope) => {
    scope.querySelectorAll("[data-live], [data-live-part]").forEach((el) => {
      if (el.id) known.set(el.id, el.outerHTML);
    });
  };
  remember(document);

  // The blocks the reader opened or closed (by a click on their summary, which the keyboard
  // sends too), kept across swaps; the server's own choice (the rounds in play) is not the
  // reader's, nor is a change this script makes.
  const chosen = new Map();

  const isRound = (el) => el instanceof HTMLDetailsElement && el.matches("details[data-round]");
  const loaded = (details) => !details.querySelector(".load-tables");

  root.addEventListener("click", (event) => {
    const target = event.target instanceof Element ? event.target : null;
    if (!target) return;
    const summary = target.closest("summary");
    const details = summary ? summary.parentElement : null;
    if (details instanceof HTMLDetailsElement && details.id) {
      chosen.set(details.id, !details.open); // the click is about to toggle it
      return;
    }
    const link = target.closest("a.load-tables");
    const round = link ? link.closest("details[data-round]") : null;
    if (!round) return;
    event.preventDefault();
    loadTables(round);
  });

  // However a round comes open (a click, the keyboard, the browser's find in page), its tables
  // are fetched if the page was sent without them.
  document.addEventListener(
    "toggle",
    (event) => {
      const details = event.target;
      if (isRound(details) && details.open && !loaded(details)) loadTables(details);
    },
    true,
  );

  function loadTables(details) {
    const holder = details.querySelector(".load");
    if (holder) {
      holder.dataset.link = holder.dataset.link || holder.innerHTML;
      holder.textContent = text.loading;
      holder.setAttribute("aria-busy", "true");
    }
    refresh().catch(() => {
      if (!holder) return;
      holder.removeAttribute("aria-busy");
      holder.innerHTML = holder.dataset.link;
      if (text.failed) holder.insertAdjacentText("afterbegin", text.failed + " ");
    });
  }

  // --- fetching and swapping -------------------------------------------------------------------

  function pageUrl() {
    const url = new URL(window.location.href);
    url.hash = "";
    url.searchParams.delete("round");
    root.querySelectorAll("details[data-round][open]").forEach((details) => {
      url.searchParams.append("round", details.dataset.round);
    });
    return url;
  }

  let running = null;
  let again = false;

  function refresh() {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          const response = await fetch(pageUrl(), {
            cache: "no-store",
            credentials: "same-origin",
            headers: { "X-Requested-With": "fetch" },
          });
          if (!response.ok) throw new Error(`HTTP ${response.status}`);
          const doc = new DOMParser().parseFromString(await response.text(), "text/html");
          apply(doc);
        } while (again);
      } finally {
        running = null;
      }
    })();
    return running;
  }

  function swap(old, fresh) {
    const html = fresh.outerHTML;
    if (known.get(fresh.id) === html) return false;
    // A search being typed in the part (a round's "find a player's table") survives the swap.
    const focused = document.activeElement;
    const typing =
      focused instanceof HTMLInputElement && focused.id && old.contains(focused)
        ? { id: focused.id, value: focused.value, start: focused.selectionStart, end: focused.selectionEnd }
        : null;
    old.replaceWith(document.importNode(fresh, true));
    if (typing) {
      const input = document.getElementById(typing.id);
      if (input instanceof HTMLInputElement) {
        input.value = typing.value;
        input.focus();
        if (typing.start !== null) input.setSelectionRange(typing.start, typing.end);
      }
    }
    remember(fresh);
    known.set(fresh.id, html);
    return true;
  }

  function partIds(el) {
    return Array.from(el.querySelectorAll("[data-live-part]"), (part) => part.id).join(" ");
  }

  function apply(doc) {
    const freshRoot = doc.getElementById("event");
    if (!freshRoot) return;
    const ids = (scope) => Array.from(scope.querySelectorAll("[data-live]"), (el) => el.id).join(" ");
    let changed = false;
    if (ids(freshRoot) !== ids(root)) {
      // A part came or went (the final places appear, a stage starts): the whole content.
      root.replaceChildren(...Array.from(freshRoot.childNodes, (n) => document.importNode(n, true)));
      remember(freshRoot);
      changed = true;
    } else {
      freshRoot.querySelectorAll("[data-live]").forEach((fresh) => {
        const old = document.getElementById(fresh.id);
        if (!old || known.get(fresh.id) === fresh.outerHTML) return;
        if (partIds(old) && partIds(old) === partIds(fresh)) {
          fresh.querySelectorAll("[data-live-part]").forEach((part) => {
            const current = document.getElementById(part.id);
            if (current && swap(current, part)) changed = true;
          });
          old.className = fresh.className;
          known.set(fresh.id, fresh.outerHTML);
        } else if (swap(old, fresh)) {
          changed = true;
        }
      });
    }
    // The indicator is not a part: keep ours (replaceChildren above brought a hidden copy).
    const newIndicator = document.getElementById("live");
    if (indicator && newIndicator && newIndicator !== indicator) newIndicator.replaceWith(indicator);
    for (const [id, open] of chosen) {
      const details = document.getElementById(id);
      if (details instanceof HTMLDetailsElement && details.open !== open) details.open = open;
    }
    version = Math.max(version, Number(freshRoot.dataset.version || 0));
    root.dataset.version = String(version);
    if (changed) updated();
  }

  // --- the feed -------------------------------------------------------------------------------

  let timer = null;
  let first = 0;

  function schedule() {
    // Wait for a burst to settle (0.4 s of quiet), but never more than 2 s after its first event.
    const now = Date.now();
    if (!timer) first = now;
    clearTimeout(timer);
    const wait = Math.min(400, Math.max(0, first + 2000 - now));
    timer = setTimeout(() => {
      timer = null;
      refresh().catch(() => show(false));
    }, wait);
  }

  function show(on) {
    if (!indicator || !indicatorText) return;
    indicator.hidden = false;
    indicator.classList.toggle("on", on);
    indicatorText.textContent = on ? text.on : text.off;
  }

  function updated() {
    if (!indicator || !indicatorText) return;
    const time = new Date().toLocaleTimeString(document.documentElement.lang || undefined);
    indicatorText.textContent = `${text.on} · ${text.updated} ${time}`;
    indicator.classList.add("flash");
    setTimeout(() => indicator.classList.remove("flash"), 1500);
  }

  let attempts = 0;

  function connect() {
    const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(`${scheme}//${window.location.host}${root.dataset.feed}`);
    socket.addEventListener("message", (message) => {
      let data;
      try {
        data = JSON.parse(message.data);
      } catch {
        return;
      }
      if (data.type === "hello") {
        attempts = 0;
        show(true);
        if (Number(data.version) > version) schedule(); // changed while we were away
      } else if (data.type === "event" && Number(data.version) > version) {
        schedule();
      }
    });
    socket.addEventListener("close", (event) => {
      // A refusal (no such tournament, not for this reader, a bad login) is final.
      if ([4401, 4403, 4404].includes(event.code)) {
        if (indicator) indicator.hidden = true;
        return;
      }
      show(false);
      attempts += 1;
      const delay = Math.min(30000, 1000 * 2 ** Math.min(attempts, 5)) * (0.75 + Math.random() / 2);
      setTimeout(connect, delay);
    });
  }

  connect();
})();
