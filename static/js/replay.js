// The replay page: steps through a finished game in place. Optional: without it the page is
// complete (the board of ?step=N, the move list, links for every step). The server sends every
// step's state (#rp-steps, every hand face up: the game is over) and every card's face
// (#rp-deck), so this file draws nothing of its own: it copies the server's markup. Words come
// from the page (data attributes and the move list), so they are translated with it.
(function () {
  "use strict";

  const root = document.getElementById("replay");
  const data = document.getElementById("rp-steps");
  if (!root || !data) return;
  const steps = JSON.parse(data.textContent);
  const last = steps.length - 1;
  const $ = (id) => document.getElementById(id);
  const faces = {};
  document.querySelectorAll("#rp-deck .card").forEach((el) => {
    faces[el.dataset.card] = el;
  });
  const moves = Array.from(document.querySelectorAll("#rp-moves li"));
  const slider = $("rp-step");
  let step = Number(root.dataset.step) || 0;

  function card(code, extra) {
    const el = faces[code].cloneNode(true);
    if (extra) el.classList.add(extra);
    return el;
  }

  function show(el, visible) {
    el.hidden = !visible;
  }

  function renderSeats(s) {
    document.querySelectorAll(".rp-seat").forEach((section) => {
      const seat = Number(section.dataset.seat);
      const hand = s.h[seat];
      const tags = {};
      section.querySelectorAll("[data-tag]").forEach((el) => (tags[el.dataset.tag] = el));
      show(tags.attacker, s.a === seat);
      show(tags.defender, s.f === seat);
      show(tags.taking, s.f === seat && s.k);
      const place = s.o.indexOf(seat);
      show(tags.out, place >= 0);
      tags.out.querySelector("[data-place]").textContent = place >= 0 ? String(place + 1) : "";
      show(tags.passed, s.p.indexOf(seat) >= 0);
      section.querySelector("[data-count]").textContent = String(hand.length);
      section.querySelector("[data-hand]").replaceChildren(...hand.map((c) => card(c, "small")));
    });
  }

  function renderTable(s) {
    const pairs = s.t.map(([attack, defense]) => {
      const pair = document.createElement("div");
      pair.className = "pair";
      pair.append(card(attack));
      if (defense) pair.append(card(defense, "defense"));
      return pair;
    });
    $("rp-table").replaceChildren(...pairs);
    $("rp-stock").textContent = String(s.s);
    $("rp-discard").textContent = String(s.d);
    if ($("rp-trump")) show($("rp-trump"), s.s > 0);
    show($("rp-stock-back"), s.s > 0);
  }

  function renderControls() {
    const targets = { first: 0, prev: Math.max(0, step - 1), next: Math.min(last, step + 1), last };
    document.querySelectorAll("[data-go]").forEach((link) => {
      const to = targets[link.dataset.go];
      link.href = "?step=" + to + "#board";
      if (to === step) link.setAttribute("aria-disabled", "true");
      else link.removeAttribute("aria-disabled");
    });
    slider.value = String(step);
    const words = root.dataset;
    const position = step ? words.moveWord + " " + step + " " + words.of + " " + last : words.deal;
    $("rp-position").textContent = position;
    slider.setAttribute("aria-valuetext", position);
    $("rp-move").textContent = moves[step] ? moves[step].textContent.trim() : "";
    moves.forEach((li, i) => {
      const link = li.querySelector("a");
      if (i === step) link.setAttribute("aria-current", "step");
      else link.removeAttribute("aria-current");
    });
    const list = $("rp-moves");
    const current = moves[step];
    if (current && list.scrollHeight > list.clientHeight) {
      // Keep the current move in view inside the list, without scrolling the page.
      const top = current.offsetTop - list.offsetTop;
      if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - current.offsetHeight) {
        list.scrollTop = top - list.clientHeight / 2;
      }
    }
  }

  function go(to, push) {
    step = Math.max(0, Math.min(last, to));
    root.dataset.step = String(step);
    const s = steps[step];
    renderSeats(s);
    renderTable(s);
    renderControls();
    const url = "?step=" + step + location.hash;
    if (push) history.replaceState({ step: step }, "", url);
  }

  document.querySelectorAll("[data-go]").forEach((link) => {
    link.addEventListener("click", (event) => {
      event.preventDefault();
      const targets = { first: 0, prev: step - 1, next: step + 1, last: last };
      go(targets[link.dataset.go], true);
    });
  });
  moves.forEach((li, i) => {
    li.querySelector("a").addEventListener("click", (event) => {
      event.preventDefault();
      go(i, true);
    });
  });
  slider.addEventListener("input", () => go(Number(slider.value), true));
  $("rp-go").hidden = true; // the slider acts at once; the button is for pages without script
  slider.closest("form").addEventListener("submit", (event) => {
    event.preventDefault();
    go(Number(slider.value), true);
  });

  const KEYS = { ArrowLeft: -1, ArrowRight: 1 };
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    // A field keeps its own keys (the slider moves with the arrows by itself).
    if (target && target.closest && target.closest("input, select, textarea")) return;
    // Home and End scroll the page unless the focus is on the board's controls.
    const onBoard = target && target.closest && target.closest("#replay");
    if (event.key in KEYS) go(step + KEYS[event.key], true);
    else if (event.key === "Home" && onBoard) go(0, true);
    else if (event.key === "End" && onBoard) go(last, true);
    else return;
    event.preventDefault();
  });

  go(step, false);
  root.dataset.ready = "1";
})();
