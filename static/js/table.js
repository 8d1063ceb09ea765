// The live table page: one WebSocket, the server's state messages rendered as they come.
// Plain JavaScript, no build step. Every string shown comes from the template (#i18n data
// attributes), so it is translated with the rest of the page. The server decides everything:
// this file only shows the state and sends what the player clicks ("legal" comes from it).
(function () {
  "use strict";

  const root = document.getElementById("live");
  if (!root) return;
  const T = document.getElementById("i18n").dataset;
  const $ = (id) => document.getElementById(id);
  const SUITS = { S: "♠", C: "♣", D: "♦", H: "♥" };
  const RED = { D: true, H: true };

  let ws = null;
  let state = null;
  let selected = null; // a hand card chosen first (defence or transfer)
  let target = null; // an attack card on the table chosen first
  let counter = 0;
  let retry = 500;
  let logGame = null;
  const logSeen = new Set();

  // --- cards --------------------------------------------------------------------------------

  function rankText(card) {
    return card[0] === "T" ? "10" : card[0];
  }

  function cardLabel(card) {
    return rankText(card) + SUITS[card[1]];
  }

  function cardEl(card, extraClass) {
    const el = document.createElement("div");
    el.className = "card" + (RED[card[1]] ? " red" : "") + (extraClass ? " " + extraClass : "");
    el.dataset.card = card;
    el.title = cardLabel(card);
    const rank = document.createElement("span");
    rank.className = "rank";
    rank.textContent = rankText(card);
    const suit = document.createElement("span");
    suit.className = "suit";
    suit.textContent = SUITS[card[1]];
    el.append(rank, suit);
    return el;
  }

  function backEl() {
    const el = document.createElement("div");
    el.className = "card back";
    return el;
  }

  // --- talking to the server ----------------------------------------------------------------

  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    ws = new WebSocket(scheme + "://" + location.host + root.dataset.wsPath);
    ws.onopen = () => {
      retry = 500;
      $("connection").textContent = T.connected;
      $("connection").className = "connection ok";
    };
    ws.onmessage = (event) => receive(JSON.parse(event.data));
    ws.onclose = (event) => {
      root.dataset.status = "disconnected";
      $("connection").className = "connection lost";
      renderReferee();
      if (event.code === 4429) {
        // Too many sockets open at once (other tabs or devices): a place frees when one
        // closes, so try again, slowly.
        $("connection").textContent = T.reconnecting;
        setTimeout(connect, 15000);
        return;
      }
      if (event.code >= 4400 && event.code < 4500) {
        // Refused (4401, 4403, 4404; the error frame before the close says why): retrying
        // will not help.
        root.dataset.closed = String(event.code);
        $("connection").textContent = T.refused;
        return;
      }
      $("connection").textContent = T.reconnecting;
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 8000);
    };
  }

  function send(message) {
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
  }

  function play(action) {
    if (!state) return;
    selected = null;
    target = null;
    counter += 1;
    root.dataset.pending = "1";
    send({
      type: "action",
      id: "c" + Date.now().toString(36) + "-" + counter,
      game: state.game,
      version: state.version,
      action: action,
    });
  }

  function receive(message) {
    if (message.type === "state") {
      state = message;
      delete root.dataset.pending;
      render();
    } else if (message.type === "ack" && rulings.delete(message.id)) {
      $("referee-reason").value = "";
      sayReferee(T.refereeDone, false);
    } else if (message.type === "error") {
      const text = T.refused + ": " + (T["error" + cap(message.code)] || message.message);
      if (rulings.delete(message.id)) return sayReferee(text, true);
      delete root.dataset.pending;
      say(text, true);
    }
  }

  function say(text, isError) {
    const el = $("message");
    el.textContent = text || "";
    el.className = "message" + (isError ? " error" : "");
  }

  // --- what the player may do (from the server's "legal" list) ------------------------------

  function legal() {
    return (state && state.legal) || [];
  }

  function actionsFor(card) {
    return legal().filter((a) => a.cards && a.cards[0] === card);
  }

  function onHandCard(card) {
    const acts = actionsFor(card);
    if (!acts.length) return;
    if (target) {
      const defence = acts.find((a) => a.type === "defend" && a.target === target);
      if (defence) return play(defence);
    }
    const simple = acts.find((a) => a.type === "attack" || a.type === "throw");
    if (simple) return play(simple);
    const defences = acts.filter((a) => a.type === "defend");
    const others = acts.filter((a) => a.type !== "defend");
    if (defences.length === 1 && !others.length) return play(defences[0]);
    selected = selected === card ? null : card;
    target = null;
    if (selected && defences.length) say(T.selectTarget);
    render();
  }

  function onTableCard(card) {
    if (selected) {
      const defence = actionsFor(selected).find((a) => a.type === "defend" && a.target === card);
      if (defence) return play(defence);
    }
    if (legal().some((a) => a.type === "defend" && a.target === card)) {
      target = target === card ? null : card;
      selected = null;
      render();
    }
  }

  function simpleButton(id, type) {
    const btn = $(id);
    const action = legal().find((a) => a.type === type);
    btn.disabled = !action;
    if (action) btn.dataset.legal = "1";
    else delete btn.dataset.legal;
    return action;
  }

  function cardButton(id, type) {
    const btn = $(id);
    const any = legal().some((a) => a.type === type);
    const action = selected && actionsFor(selected).find((a) => a.type === type);
    btn.hidden = !any;
    btn.disabled = !action;
    if (action) btn.dataset.legal = "1";
    else delete btn.dataset.legal;
  }

  // --- rendering ----------------------------------------------------------------------------

  function names() {
    return (state && state.players) || [];
  }

  function seatName(seat) {
    const name = names()[seat] || "#" + seat;
    return state.role === "player" && seat === state.seat ? name + " (" + T.you + ")" : name;
  }

  function render() {
    if (!state) return;
    root.dataset.status = state.status;
    root.dataset.version = state.version === undefined ? "" : String(state.version);
    root.dataset.game = state.game || "";
    root.dataset.seat = state.seat === null || state.seat === undefined ? "" : String(state.seat);
    $("game-status").textContent = T["status" + cap(state.status)] || state.status;
    $("game-status").className = "badge status-" + state.status;
    renderReferee();
    if (!state.game) return;
    $("game-number").textContent = T.game + " " + state.number;
    const view = state.view;
    renderOpponents(view);
    renderDeck(view);
    renderTable(view);
    renderHand(view);
    renderResult();
    renderFairness();
    renderLog();
    tick();
  }

  function cap(text) {
    return text ? text[0].toUpperCase() + text.slice(1) : "";
  }

  function renderOpponents(view) {
    const box = $("opponents");
    box.replaceChildren();
    // A referee's view is the whole state: every hand, and no separate list of sizes.
    const sizes = view.hand_sizes || view.hands.map((hand) => hand.length);
    for (let seat = 0; seat < sizes.length; seat += 1) {
      if (state.role === "player" && seat === state.seat) continue;
      const el = document.createElement("div");
      el.className = "opponent";
      el.dataset.seat = seat;
      el.dataset.handSize = sizes[seat];
      const head = document.createElement("div");
      head.className = "opponent-name";
      head.textContent = seatName(seat);
      el.append(head, tags(view, seat));
      const hand = document.createElement("div");
      hand.className = "mini-hand";
      // A referee is sent every hand; anyone else only the sizes (the server never sends more).
      const cards = view.hands ? view.hands[seat] : null;
      if (cards) cards.forEach((c) => hand.append(cardEl(c, "small")));
      else for (let i = 0; i < Math.min(sizes[seat], 12); i += 1) hand.append(backEl());
      const count = document.createElement("div");
      count.className = "count";
      count.textContent = sizes[seat] + " " + T.cards;
      el.append(hand, count);
      box.append(el);
    }
  }

  function tags(view, seat) {
    const el = document.createElement("div");
    el.className = "tags";
    const add = (text, cls) => {
      const tag = document.createElement("span");
      tag.className = "tag " + cls;
      tag.textContent = text;
      el.append(tag);
    };
    if (view.out.includes(seat)) add(T.out, "out");
    else if (!view.finished) {
      if (view.attacker === seat) add(T.attacker, "attacker");
      if (view.defender === seat) add(T.defender, "defender");
      if (view.passed.includes(seat)) add(T.passed, "passed");
    }
    return el;
  }

  function renderDeck(view) {
    $("trump-suit").textContent = SUITS[view.trump];
    $("trump-suit").className = RED[view.trump] ? "red" : "";
    $("stock-count").textContent = view.stock;
    $("discard-count").textContent = view.discard;
    const slot = $("trump-card");
    slot.replaceChildren();
    if (view.trump_card && view.stock > 0) slot.append(cardEl(view.trump_card, "trump"));
    $("stock-back").hidden = view.stock <= 1;
  }

  function renderTable(view) {
    const box = $("table");
    box.replaceChildren();
    view.table.forEach((pair) => {
      const el = document.createElement("div");
      el.className = "pair";
      const attack = cardEl(pair.attack, "attack");
      const canTarget = legal().some((a) => a.type === "defend" && a.target === pair.attack);
      if (canTarget) {
        attack.dataset.targetLegal = "1";
        attack.classList.add("clickable");
      }
      if (target === pair.attack) attack.classList.add("selected");
      attack.addEventListener("click", () => onTableCard(pair.attack));
      el.append(attack);
      if (pair.defense) el.append(cardEl(pair.defense, "defense"));
      box.append(el);
    });
  }

  function renderHand(view) {
    const me = $("me");
    const hand = $("hand");
    hand.replaceChildren();
    if (state.role !== "player" || state.seat === null) {
      me.classList.add("watching");
      $("my-name").textContent = "";
      $("prompt").textContent = T.watching;
      ["btn-take", "btn-pass"].forEach((id) => ($(id).hidden = true));
      return;
    }
    $("my-name").textContent = seatName(state.seat);
    (view.hand || []).forEach((card) => {
      const el = cardEl(card);
      const acts = actionsFor(card);
      if (acts.length) {
        el.dataset.legal = Array.from(new Set(acts.map((a) => a.type))).join(" ");
        const targets = acts.filter((a) => a.type === "defend").map((a) => a.target);
        if (targets.length) el.dataset.targets = targets.join(" ");
        el.classList.add("clickable");
      }
      if (selected === card) el.classList.add("selected");
      el.addEventListener("click", () => onHandCard(card));
      hand.append(el);
    });
    if (selected && !actionsFor(selected).length) selected = null;
    const take = simpleButton("btn-take", "take");
    const pass = simpleButton("btn-pass", "pass");
    simpleButton("btn-redeal", "redeal");
    $("btn-redeal").hidden = !legal().some((a) => a.type === "redeal");
    cardButton("btn-transfer", "transfer");
    cardButton("btn-show-trump", "show_trump");
    $("btn-take").hidden = false;
    $("btn-pass").hidden = false;
    const mine = legal().length > 0 || take || pass;
    $("prompt").textContent = state.status !== "active" ? "" : mine ? T.yourMove : T.wait;
    $("prompt").className = "prompt" + (mine ? " go" : "");
    tags(view, state.seat).childNodes.forEach((t) => $("prompt").append(" ", t.cloneNode(true)));
  }

  function renderResult() {
    const box = $("result");
    const result = state.result;
    box.hidden = !result;
    if (!result) return;
    const body = $("result-body");
    body.replaceChildren();
    const line = (text, cls) => {
      const p = document.createElement("p");
      p.textContent = text;
      if (cls) p.className = cls;
      body.append(p);
    };
    line(T.places + ": " + result.places.map((s, i) => i + 1 + ". " + seatName(s)).join(", "));
    if (result.draw || result.fool === null) line(T.draw, "draw");
    else line(T.fool + ": " + seatName(result.fool), "fool");
    // "hangings" (only after a three-player double) lists every hanging of the game in order.
    const pogony = result.hangings || (result.pogony ? [].concat(result.pogony) : []);
    pogony.forEach((p) => {
      const on = p.on.map(seatName).join(", ");
      line(T.pogony + " (" + p.rank + "): " + seatName(p.by) + " " + T.pogonyOn + " " + on, "pogony");
    });
  }

  function renderFairness() {
    $("commitment").textContent = state.seed_commitment || "";
    const revealed = Boolean(state.seed);
    $("seed-line").hidden = !revealed;
    $("seed-secret").hidden = revealed;
    if (revealed) {
      $("seed").textContent = state.seed;
      $("verify-link").href = root.dataset.verifyUrl.replace("/0/", "/" + state.game + "/");
    }
  }

  function renderLog() {
    const list = $("log");
    if (logGame !== state.game) {
      if (logGame !== null) {
        const sep = document.createElement("li");
        sep.className = "log-game";
        sep.textContent = T.game + " " + state.number;
        list.append(sep);
      }
      logGame = state.game;
      logSeen.clear();
    }
    (state.log || []).forEach((entry) => {
      if (logSeen.has(entry.seq)) return;
      logSeen.add(entry.seq);
      const li = document.createElement("li");
      li.dataset.seq = entry.seq;
      let text = seatName(entry.seat) + " " + (T["log" + cap(entry.type)] || entry.type);
      if (entry.type === "defend") {
        text += " " + cardLabel(entry.target) + " " + T.logWith + " " + cardLabel(entry.cards[0]);
      } else if (entry.cards) {
        text += " " + entry.cards.map(cardLabel).join(" ");
      }
      if (entry.kind === "clock") text += " (" + T.logClock + ")";
      li.textContent = text;
      list.append(li);
    });
    list.scrollTop = list.scrollHeight;
  }

  function tick() {
    const clock = $("clock");
    if (!state || !state.deadline || state.status !== "active") {
      clock.hidden = true;
      return;
    }
    const left = Math.max(0, Math.round((Date.parse(state.deadline) - Date.now()) / 1000));
    clock.hidden = false;
    clock.textContent = Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
    clock.classList.toggle("urgent", left <= 10);
  }

  // --- the referee's panel (markup only on a referee's page, shown when the socket agrees) ---

  const panel = $("referee");
  const rulings = new Set(); // ids of referee commands still waiting for their answer
  const ALLOWED = {
    pause: ["active"],
    resume: ["paused"],
    void: ["active", "paused"],
    adjudicate: ["active", "paused"],
  };
  let rulingFor = null; // the game and players the place selects were built for

  function sayReferee(text, isError) {
    const el = $("referee-message");
    el.textContent = text || "";
    el.className = "message" + (isError ? " error" : "");
  }

  function renderReferee() {
    if (!panel) return;
    panel.hidden = !state || state.role !== "referee";
    if (panel.hidden) return;
    const online = ws !== null && ws.readyState === WebSocket.OPEN;
    panel.querySelectorAll("button[data-command]").forEach((btn) => {
      const allowed = ALLOWED[btn.dataset.command] || [];
      btn.disabled = !online || !state.game || !allowed.includes(state.status);
    });
    buildRuling();
  }

  function option(value, text) {
    const el = document.createElement("option");
    el.value = value;
    el.textContent = text;
    return el;
  }

  function placeSelects() {
    return Array.from($("ruling-places").querySelectorAll("select"));
  }

  // One select per place, seat i in place i at first; the choices stay across state messages
  // of the same game and are rebuilt for a new game.
  function buildRuling() {
    const key = state.game ? state.game + ":" + names().join("\n") : null;
    if (key === rulingFor) return;
    rulingFor = key;
    const list = $("ruling-places");
    const fool = $("ruling-fool");
    list.replaceChildren();
    fool.replaceChildren(option("", T.nobody));
    names().forEach((_, seat) => {
      const li = document.createElement("li");
      const label = document.createElement("label");
      const select = document.createElement("select");
      select.dataset.place = seat;
      names().forEach((__, s) => select.append(option(s, seatName(s))));
      select.value = select.dataset.value = String(seat);
      select.addEventListener("change", () => movePlace(select));
      label.append(T.place + " " + (seat + 1) + " ", select);
      li.append(label);
      list.append(li);
      fool.append(option(seat, seatName(seat)));
    });
  }

  // Choosing a seat for a place swaps it with the place that held it: always one place a seat.
  function movePlace(select) {
    const other = placeSelects().find((s) => s !== select && s.value === select.value);
    if (other) other.value = other.dataset.value = select.dataset.value;
    select.dataset.value = select.value;
  }

  function ruling() {
    const places = placeSelects().map((s) => Number(s.value));
    const foolValue = $("ruling-fool").value;
    const fool = foolValue === "" ? null : Number(foolValue);
    if (new Set(places).size !== places.length) return { problem: T.placesOnce };
    if (fool !== null && fool !== places[places.length - 1]) return { problem: T.foolLast };
    return { places: places, fool: fool };
  }

  if (panel) {
    $("referee-form").addEventListener("submit", (event) => event.preventDefault());
    // The fool is the last of the places: naming one moves that seat there.
    $("ruling-fool").addEventListener("change", () => {
      const seat = $("ruling-fool").value;
      const selects = placeSelects();
      const last = selects[selects.length - 1];
      if (seat === "" || !last || last.value === seat) return;
      last.value = seat;
      movePlace(last);
    });
    panel.querySelectorAll("button[data-command]").forEach((btn) =>
      btn.addEventListener("click", () => {
        const reason = $("referee-reason").value.trim();
        if (!reason) {
          $("referee-reason").focus();
          return sayReferee(T.reasonNeeded, true);
        }
        const message = { type: "referee", command: btn.dataset.command, reason: reason };
        if (btn.dataset.command === "adjudicate") {
          const chosen = ruling();
          if (chosen.problem) return sayReferee(chosen.problem, true);
          message.places = chosen.places;
          message.fool = chosen.fool;
        }
        counter += 1;
        message.id = "r" + Date.now().toString(36) + "-" + counter;
        rulings.add(message.id);
        sayReferee("", false);
        send(message);
      }),
    );
  }

  // --- wiring -------------------------------------------------------------------------------

  $("btn-take").addEventListener("click", () => {
    const a = legal().find((x) => x.type === "take");
    if (a) play(a);
  });
  $("btn-pass").addEventListener("click", () => {
    const a = legal().find((x) => x.type === "pass");
    if (a) play(a);
  });
  $("btn-redeal").addEventListener("click", () => {
    const a = legal().find((x) => x.type === "redeal");
    if (a) play(a);
  });
  $("btn-transfer").addEventListener("click", () => {
    const a = selected && actionsFor(selected).find((x) => x.type === "transfer");
    if (a) play(a);
  });
  $("btn-show-trump").addEventListener("click", () => {
    const a = selected && actionsFor(selected).find((x) => x.type === "show_trump");
    if (a) play(a);
  });
  setInterval(tick, 500);
  connect();
})();
