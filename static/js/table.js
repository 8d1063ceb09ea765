// The live table page: one WebSocket, the server's state messages rendered as they come.
// Plain JavaScript, no build step. Every string shown comes from the template (#i18n data
// attributes), so it is translated with the rest of the page. The server decides everything:
// this file only shows the state and sends what the player chooses ("legal" comes from it).
// Keyboard: the hand is one tab stop (arrow keys move along it, Enter/Space plays), T takes,
// P passes, R transfers, Esc drops a choice; attack cards on the table are buttons while one
// of them is to be beaten.
(function () {
  "use strict";

  const root = document.getElementById("live");
  if (!root) return;
  const T = document.getElementById("i18n").dataset;
  const $ = (id) => document.getElementById(id);
  const SUITS = { S: "♠", C: "♣", D: "♦", H: "♥" };
  const RED = { D: true, H: true };
  const plurals = new Intl.PluralRules(document.documentElement.lang || "ru");
  const PENDING_MS = 10000; // no answer by then: ask for the state again

  let ws = null;
  let state = null;
  let selected = null; // a hand card chosen first (defence on one of several cards, transfer)
  let target = null; // an attack card on the table chosen first
  let counter = 0;
  let retry = 500;
  let logGame = null;
  const logSeen = new Set();
  let pending = null; // {id, version, timer} of the move waiting for the server's answer
  let focusCard = null; // the hand card that holds the hand's one tab stop
  let wasOffline = false;
  let announced = false; // the first state's log is history, not news
  let wasMine = false;
  let turn = { text: "", mine: false, became: false }; // the prompt as last rendered

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, (_, key) => String(values[key]));
  }

  function online() {
    return ws !== null && ws.readyState === WebSocket.OPEN;
  }

  function busy() {
    return pending !== null || !online();
  }

  // --- cards --------------------------------------------------------------------------------

  function rankText(card) {
    return card[0] === "T" ? "10" : card[0];
  }

  function cardLabel(card) {
    return rankText(card) + SUITS[card[1]];
  }

  // "seven of spades" / "семёрка пик": what a screen reader says for a card.
  function cardName(card) {
    // data-rank-7 is dataset["rank-7"], data-rank-q is dataset.rankQ (the dataset's spelling).
    const rank = T["rank" + card[0]] || T["rank-" + card[0]] || rankText(card);
    const suit = T["suit" + card[1]] || SUITS[card[1]];
    return fill(T.cardName, { rank: rank, suit: suit });
  }

  function cardEl(card, extraClass, asButton) {
    const el = document.createElement(asButton ? "button" : "div");
    el.className = "card" + (RED[card[1]] ? " red" : "") + (extraClass ? " " + extraClass : "");
    el.dataset.card = card;
    if (asButton) {
      el.type = "button";
      el.setAttribute("aria-label", cardName(card));
    } else {
      el.setAttribute("role", "img");
      el.setAttribute("aria-label", cardName(card));
    }
    el.title = cardLabel(card);
    const rank = document.createElement("span");
    rank.className = "rank";
    rank.textContent = rankText(card);
    const suit = document.createElement("span");
    suit.className = "suit";
    suit.textContent = SUITS[card[1]];
    const pip = document.createElement("span");
    pip.className = "pip";
    pip.textContent = SUITS[card[1]];
    el.append(rank, suit, pip);
    return el;
  }

  function backEl() {
    const el = document.createElement("div");
    el.className = "card back";
    return el;
  }

  function countText(n) {
    const form = plurals.select(n);
    return n + " " + (form === "one" ? T.cardsOne : form === "few" ? T.cardsFew : T.cardsMany);
  }

  // --- talking to the server ----------------------------------------------------------------

  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    ws = new WebSocket(scheme + "://" + location.host + root.dataset.wsPath);
    ws.onopen = () => {
      retry = 500;
      $("connection").textContent = T.connected;
      $("connection").className = "connection ok";
      if (wasOffline) {
        wasOffline = false;
        banner(T.online, false);
        setTimeout(() => {
          if (online()) $("offline").hidden = true;
        }, 3000);
      }
    };
    ws.onmessage = (event) => receive(JSON.parse(event.data));
    ws.onclose = (event) => {
      root.dataset.status = "disconnected";
      $("connection").className = "connection lost";
      clearPending();
      renderReferee();
      if (event.code === 4429) {
        // Too many sockets open at once (other tabs or devices): a place frees when one
        // closes, so try again, slowly.
        $("connection").textContent = T.reconnecting;
        offline();
        setTimeout(connect, 15000);
        return;
      }
      if (event.code >= 4400 && event.code < 4500) {
        // Refused (4401, 4403, 4404; the error frame before the close says why): retrying
        // will not help.
        root.dataset.closed = String(event.code);
        $("connection").textContent = T.refused;
        render();
        return;
      }
      $("connection").textContent = T.reconnecting;
      offline();
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 8000);
    };
  }

  function banner(text, lost) {
    const el = $("offline");
    el.textContent = text;
    el.className = "offline" + (lost ? " lost" : " back");
    el.hidden = false;
  }

  function offline() {
    wasOffline = true;
    banner(T.offline, true);
    render();
  }

  function send(message) {
    if (online()) ws.send(JSON.stringify(message));
  }

  function clearPending() {
    if (pending) clearTimeout(pending.timer);
    pending = null;
    delete root.dataset.pending;
    $("me").removeAttribute("aria-busy");
  }

  function play(action) {
    // One move at a time, and none while the socket is down: a second click is ignored.
    if (!state || busy()) return;
    selected = null;
    target = null;
    counter += 1;
    const id = "c" + Date.now().toString(36) + "-" + counter;
    pending = {
      id: id,
      version: state.version,
      timer: setTimeout(() => {
        clearPending();
        send({ type: "sync" });
        render();
      }, PENDING_MS),
    };
    root.dataset.pending = "1";
    $("me").setAttribute("aria-busy", "true");
    say(T.busy, false);
    send({ type: "action", id: id, game: state.game, version: state.version, action: action });
    render();
  }

  function receive(message) {
    if (message.type === "state") {
      const previous = state;
      state = message;
      if (pending && (message.game !== previous?.game || message.version !== pending.version)) {
        clearPending();
      }
      say("", false); // a refusal or a hint lasts until the next state
      render();
    } else if (message.type === "ack") {
      if (rulings.delete(message.id)) {
        if (adjudications.delete(message.id)) ruled = true;
        $("referee-reason").value = "";
        sayReferee(T.refereeDone, false);
      } else if (pending && pending.id === message.id) {
        // The ack may overtake the state it announces: stay busy until that state is shown.
        if (!state || message.game !== state.game || message.version <= state.version) {
          clearPending();
          render();
        }
      }
    } else if (message.type === "error") {
      const words = T["error" + camel(message.code)] || message.message;
      const text = T.refused + ": " + words;
      if (rulings.delete(message.id)) return sayReferee(text, true);
      const mine = pending && pending.id === message.id;
      if (mine) clearPending();
      // A stale version (a double click, a move crossing the other's): the server sends the
      // current state right after; nothing to tell the player.
      if (message.code === "stale_version") return;
      say(text, true);
      render();
    }
  }

  function say(text, isError) {
    const el = $("message");
    el.textContent = text || "";
    el.className = "message" + (isError ? " error" : "");
  }

  // --- what the player may do (from the server's "legal" list) ------------------------------

  function legal() {
    return (state && state.status === "active" && state.legal) || [];
  }

  function actionsFor(card) {
    return legal().filter((a) => a.cards && a.cards[0] === card);
  }

  function onHandCard(card) {
    if (busy()) return;
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
    render();
    // Several cards it may beat: the choice moves to the table.
    if (selected && defences.length > 1) focusTable();
  }

  function onTableCard(card) {
    if (busy()) return;
    if (selected) {
      const defence = actionsFor(selected).find((a) => a.type === "defend" && a.target === card);
      if (defence) return play(defence);
    }
    if (legal().some((a) => a.type === "defend" && a.target === card)) {
      target = target === card ? null : card;
      selected = null;
      render();
      if (target) focusHand();
    }
  }

  function cancelChoice() {
    if (!selected && !target) return;
    selected = null;
    target = null;
    render();
    focusHand();
  }

  function simpleButton(id, type) {
    const btn = $(id);
    const action = !busy() && legal().find((a) => a.type === type);
    btn.disabled = !action;
    if (action) btn.dataset.legal = "1";
    else delete btn.dataset.legal;
    return action;
  }

  function cardButton(id, type) {
    const btn = $(id);
    const any = legal().some((a) => a.type === type);
    const action = !busy() && selected && actionsFor(selected).find((a) => a.type === type);
    btn.hidden = !any;
    btn.disabled = !action;
    if (action) btn.dataset.legal = "1";
    else delete btn.dataset.legal;
  }

  function doSimple(type) {
    if (busy()) return;
    const a = legal().find((x) => x.type === type);
    if (a) play(a);
  }

  // A card action by its button or key: the chosen card's, else the focused card's.
  function doCardAction(type) {
    if (busy()) return;
    const focused = document.activeElement?.closest?.("#hand .card");
    const card = selected || (focused ? focused.dataset.card : null);
    const a = card && actionsFor(card).find((x) => x.type === type);
    if (a) play(a);
  }

  // --- rendering ----------------------------------------------------------------------------

  function names() {
    return (state && state.players) || [];
  }

  function plainName(seat) {
    return names()[seat] || "#" + seat;
  }

  // A name inside a sentence: a very long one is cut (the strip and the log show it whole).
  function shortName(seat) {
    const name = plainName(seat);
    return name.length > 18 ? name.slice(0, 16) + "…" : name;
  }

  function seatName(seat) {
    const name = plainName(seat);
    return state.role === "player" && seat === state.seat ? name + " (" + T.you + ")" : name;
  }

  function rankOf(seat) {
    return (state && Array.isArray(state.ranks) && state.ranks[seat]) || "";
  }

  function render() {
    if (!state) return;
    root.dataset.status = online() ? state.status : "disconnected";
    root.dataset.version = state.version === undefined ? "" : String(state.version);
    root.dataset.game = state.game || "";
    root.dataset.seat = state.seat === null || state.seat === undefined ? "" : String(state.seat);
    root.classList.toggle("offline-mode", !online());
    $("game-status").textContent = T["status" + cap(state.status)] || state.status;
    $("game-status").className = "badge status-" + state.status;
    renderReferee();
    if (!state.game) return;
    $("game-number").textContent = T.game + " " + state.number;
    const view = state.view;
    const zone = focusZone();
    renderOpponents(view);
    renderDeck(view);
    renderTable(view);
    renderHand(view);
    renderPrompt(view);
    renderResult();
    renderFairness();
    renderLog();
    restoreFocus(zone);
    tick();
  }

  function cap(text) {
    return text ? text[0].toUpperCase() + text.slice(1) : "";
  }

  // "not_your_turn" -> "NotYour_turn" as dataset keys spell data-error-not_your_turn.
  function camel(code) {
    return cap(code || "");
  }

  function isTaking(view, seat) {
    return Boolean(view.taking) && view.defender === seat && !view.finished;
  }

  function renderOpponents(view) {
    const box = $("opponents");
    box.replaceChildren();
    // A referee's view is the whole state: every hand, and no separate list of sizes.
    const sizes = view.hand_sizes || view.hands.map((hand) => hand.length);
    for (let seat = 0; seat < sizes.length; seat += 1) {
      if (state.role === "player" && seat === state.seat) continue;
      const el = document.createElement("li");
      el.className = "opponent";
      el.dataset.seat = seat;
      el.dataset.handSize = sizes[seat];
      const turn = whoseTurn(view).includes(seat);
      if (turn) el.classList.add("turn");
      const head = document.createElement("div");
      head.className = "opponent-name seat-name";
      head.textContent = seatName(seat);
      head.title = seatName(seat);
      const rank = rankOf(seat);
      const line = document.createElement("div");
      line.className = "opponent-line";
      const count = document.createElement("span");
      count.className = "count";
      count.textContent = countText(sizes[seat]);
      line.append(count, tags(view, seat));
      el.append(head);
      if (rank) el.append(rankEl(rank));
      el.append(line);
      // A referee is sent every hand; anyone else only the sizes (the server never sends more).
      const cards = view.hands ? view.hands[seat] : null;
      if (cards) {
        const hand = document.createElement("div");
        hand.className = "mini-hand";
        cards.forEach((c) => hand.append(cardEl(c, "small")));
        el.append(hand);
      }
      box.append(el);
    }
  }

  function rankEl(rank) {
    const el = document.createElement("span");
    el.className = "seat-rank";
    el.textContent = rank;
    return el;
  }

  function tags(view, seat) {
    const el = document.createElement("span");
    el.className = "tags";
    const add = (text, cls) => {
      const tag = document.createElement("span");
      tag.className = "tag " + cls;
      tag.textContent = text;
      el.append(tag);
    };
    if (view.out.includes(seat)) add(T.out, "out");
    else if (!view.finished) {
      if (view.attacker === seat && view.defender !== seat) add(T.attacker, "attacker");
      if (isTaking(view, seat)) add(T.taker, "taker");
      else if (view.defender === seat) add(T.defender, "defender");
      if (view.passed.includes(seat)) add(T.passed, "passed");
    }
    return el;
  }

  // The seats the game waits for: the attacker to lead, the defender to beat, the throwers
  // who have not passed yet once everything is beaten or the defender takes.
  function whoseTurn(view) {
    if (!state || state.status !== "active" || view.finished) return [];
    if (!view.table.length) return [view.attacker];
    const unbeaten = view.table.some((p) => !p.defense);
    if (unbeaten && !view.taking) return [view.defender];
    const throwers = view.throwers || [];
    return throwers.filter((s) => !view.passed.includes(s) && !view.out.includes(s));
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
    const choosing = Boolean(selected) && actionsFor(selected).some((a) => a.type === "defend");
    let first = true;
    view.table.forEach((pair) => {
      const el = document.createElement("div");
      el.className = "pair";
      const canTarget = legal().some((a) => a.type === "defend" && a.target === pair.attack);
      const fits =
        canTarget &&
        (!choosing ||
          actionsFor(selected).some((a) => a.type === "defend" && a.target === pair.attack));
      const attack = cardEl(pair.attack, "attack", canTarget);
      if (canTarget) {
        attack.dataset.targetLegal = "1";
        attack.classList.add("clickable");
        // One tab stop for the table's targets too; arrows move between them.
        attack.tabIndex = fits && first ? 0 : -1;
        if (fits) first = false;
        if (!fits || busy()) attack.setAttribute("aria-disabled", "true");
        attack.addEventListener("click", () => onTableCard(pair.attack));
      }
      if (target === pair.attack) {
        attack.classList.add("selected");
        if (canTarget) attack.setAttribute("aria-pressed", "true");
      }
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
      ["btn-take", "btn-pass"].forEach((id) => ($(id).hidden = true));
      return;
    }
    $("my-name").textContent = seatName(state.seat);
    $("my-name").title = seatName(state.seat);
    const myTags = $("my-tags");
    myTags.replaceChildren(...tags(view, state.seat).childNodes);
    const rank = rankOf(state.seat);
    if (rank) myTags.prepend(rankEl(rank));
    const cards = view.hand || [];
    if (selected && !actionsFor(selected).length) selected = null;
    const legalCards = cards.filter((c) => actionsFor(c).length);
    if (!cards.includes(focusCard)) focusCard = legalCards[0] || cards[0] || null;
    hand.classList.toggle("mine", legalCards.length > 0);
    cards.forEach((card) => {
      const el = cardEl(card, "", true);
      const acts = actionsFor(card);
      el.tabIndex = card === focusCard ? 0 : -1;
      if (acts.length) {
        el.dataset.legal = Array.from(new Set(acts.map((a) => a.type))).join(" ");
        const targets = acts.filter((a) => a.type === "defend").map((a) => a.target);
        if (targets.length) el.dataset.targets = targets.join(" ");
        el.classList.add("clickable");
      }
      if (!acts.length || busy()) el.setAttribute("aria-disabled", "true");
      if (selected === card) {
        el.classList.add("selected");
        el.setAttribute("aria-pressed", "true");
      }
      el.addEventListener("click", () => onHandCard(card));
      el.addEventListener("focus", () => {
        focusCard = card;
        hand.querySelectorAll(".card").forEach((c) => (c.tabIndex = c === el ? 0 : -1));
      });
      hand.append(el);
    });
    fan(hand, cards.length);
    simpleButton("btn-take", "take");
    simpleButton("btn-pass", "pass");
    simpleButton("btn-redeal", "redeal");
    $("btn-redeal").hidden = !legal().some((a) => a.type === "redeal");
    cardButton("btn-transfer", "transfer");
    cardButton("btn-show-trump", "show_trump");
    $("btn-take").hidden = false;
    $("btn-pass").hidden = false;
  }

  // Cards overlap when the hand is wider than its row: never a second row, never off-screen.
  function fan(hand, n) {
    if (n < 2) {
      hand.style.removeProperty("--step");
      return;
    }
    const width = hand.clientWidth;
    const first = hand.firstElementChild;
    const card = first ? first.getBoundingClientRect().width : 54;
    const gap = 6;
    const step = Math.max(16, Math.min(card + gap, (width - card - 4) / (n - 1)));
    hand.style.setProperty("--step", step - card + "px");
  }

  function renderPrompt(view) {
    const prompt = $("prompt");
    const { text, mine } = promptFor(view);
    prompt.textContent = mine ? T.yourMove + ": " + text : text;
    prompt.className = "prompt" + (mine ? " go" : "") + (busy() ? " busy" : "");
    $("me").classList.toggle("my-turn", mine);
    turn = { text: prompt.textContent, mine: mine, became: mine && !wasMine };
    wasMine = mine;
  }

  function unbeatenLabels(view) {
    return view.table.filter((p) => !p.defense).map((p) => cardLabel(p.attack)).join(", ");
  }

  function promptFor(view) {
    const player = state.role === "player" && state.seat !== null;
    // The socket is down: no move can be sent, so none is asked for (the banner says why).
    if (player && !online() && state.status === "active" && !view.finished) {
      return { text: T.offline, mine: false };
    }
    if (state.status !== "active" || view.finished) {
      const result = state.result;
      if (!result) return { text: view.finished ? T.promptOver : "", mine: false };
      const you = state.role === "player" && result.fool === state.seat ? " (" + T.you + ")" : "";
      const fool =
        result.draw || result.fool === null ? T.draw : T.fool + ": " + shortName(result.fool) + you;
      return { text: T.promptOver + ". " + fool, mine: false };
    }
    if (player && view.out.includes(state.seat)) return { text: T.promptOut, mine: false };
    const acts = legal();
    const types = new Set(acts.map((a) => a.type));
    const waiting = whoseTurn(view).filter((s) => !player || s !== state.seat);
    const waitText = () => {
      const who = waiting.map(plainName).join(", ");
      if (view.taking && view.table.length) {
        return fill(T.promptWaitTaking, { name: shortName(view.defender), names: who });
      }
      return fill(T.promptWait, { names: who });
    };
    if (!player) return { text: T.watching + ". " + (waiting.length ? waitText() : ""), mine: false };
    if (selected && actionsFor(selected).some((a) => a.type === "defend") && !target) {
      const several = actionsFor(selected).filter((a) => a.type === "defend").length > 1;
      if (several) return { text: T.promptTarget, mine: true };
    }
    if (selected && actionsFor(selected).some((a) => a.type === "transfer")) {
      return { text: T.promptTransfer, mine: true };
    }
    if (selected && actionsFor(selected).some((a) => a.type === "show_trump")) {
      return { text: T.promptShowTrump, mine: true };
    }
    const room = typeof state.throw_room === "number" ? state.throw_room : 0;
    const plural = (key, n) => T[key + (plurals.select(n) === "one" ? "One" : "Other")];
    if (types.has("attack")) {
      return { text: types.has("redeal") ? T.promptRedeal : T.promptAttack, mine: true };
    }
    if (types.has("take") || types.has("defend") || types.has("transfer")) {
      const cards = unbeatenLabels(view);
      const transfer = types.has("transfer") || types.has("show_trump");
      let key;
      if (types.has("defend")) key = transfer ? "promptDefendTransfer" : "promptDefend";
      else key = transfer ? "promptNoBeatTransfer" : "promptNoBeat";
      return { text: fill(T[key], { cards: cards }), mine: true };
    }
    const taker = shortName(view.defender);
    if (types.has("pass")) {
      const n = types.has("throw") ? room : 0;
      if (view.taking) {
        const text = n
          ? fill(plural("promptTaking", n), { name: taker, n: n })
          : fill(T.promptTakingPass, { name: taker });
        return { text: text, mine: true };
      }
      const text = n ? fill(plural("promptBeaten", n), { n: n }) : T.promptBeatenPass;
      return { text: text, mine: true };
    }
    if (types.has("throw")) {
      // The defender is still at it: throwing in is allowed, not asked for.
      return { text: fill(plural("promptThrow", room), { name: taker, n: room }), mine: false };
    }
    return { text: waiting.length ? waitText() : T.wait, mine: false };
  }

  function announce(lines) {
    const text = lines.filter(Boolean).join(". ");
    if (!text) return;
    const el = $("announce");
    // Emptied first so that the same words twice are read twice.
    el.textContent = "";
    setTimeout(() => (el.textContent = text), 50);
  }

  // --- focus across renders: the page is rebuilt on every state, a keyboard player's place is not

  function focusZone() {
    const active = document.activeElement;
    if (!active || active === document.body) return null;
    if ($("hand").contains(active)) return "hand";
    if ($("table").contains(active)) return "table";
    if (active.closest && active.closest(".controls")) return "controls:" + active.id;
    return null;
  }

  function restoreFocus(zone) {
    if (!zone) return;
    const active = document.activeElement;
    if (active && active !== document.body && document.contains(active)) {
      if (!active.disabled) return;
    }
    // Back to the hand after a move; to the table only while a chosen card waits for its target.
    if (zone === "table" && selected && focusTable()) return;
    if (zone.startsWith("controls:")) {
      const btn = $(zone.slice(9));
      if (btn && !btn.disabled && !btn.hidden) return btn.focus({ preventScroll: true });
    }
    focusHand();
  }

  function focusHand() {
    const card =
      $("hand").querySelector('.card[tabindex="0"]') || $("hand").querySelector(".card");
    if (card) card.focus({ preventScroll: true });
    else if (state && state.role === "player") $("prompt").focus?.();
    return Boolean(card);
  }

  function focusTable() {
    const card = $("table").querySelector('.card[tabindex="0"]');
    if (card) card.focus({ preventScroll: true });
    return Boolean(card);
  }

  function moveFocus(container, event) {
    const cards = Array.from(container.querySelectorAll("button.card"));
    const at = cards.indexOf(document.activeElement);
    if (at < 0) return;
    let next = at;
    if (event.key === "ArrowRight" || event.key === "ArrowDown") next = Math.min(cards.length - 1, at + 1);
    else if (event.key === "ArrowLeft" || event.key === "ArrowUp") next = Math.max(0, at - 1);
    else if (event.key === "Home") next = 0;
    else if (event.key === "End") next = cards.length - 1;
    else return;
    event.preventDefault();
    cards.forEach((c, i) => (c.tabIndex = i === next ? 0 : -1));
    cards[next].focus({ preventScroll: true });
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
      addReplay();
    }
  }

  // A game over (its seed revealed) can be replayed: its link joins the series' others.
  function addReplay() {
    const box = $("replays");
    if (box.querySelector('a[data-game="' + state.game + '"]')) return;
    const a = document.createElement("a");
    a.href = root.dataset.replayUrl.replace("/0/", "/" + state.game + "/");
    a.dataset.game = String(state.game);
    a.textContent = T.game + " " + state.number;
    box.append(a, " ");
    box.hidden = false;
  }

  function logText(entry) {
    let text = seatName(entry.seat) + " " + (T["log" + cap(entry.type)] || entry.type);
    if (entry.type === "defend") {
      text += " " + cardLabel(entry.target) + " " + T.logWith + " " + cardLabel(entry.cards[0]);
    } else if (entry.cards) {
      text += " " + entry.cards.map(cardLabel).join(" ");
    }
    if (entry.kind === "clock") text += " (" + T.logClock + ")";
    return text;
  }

  // The same move in words for a screen reader: card names, not glyphs.
  function logSpoken(entry) {
    let text = plainName(entry.seat) + " " + (T["log" + cap(entry.type)] || entry.type);
    if (entry.type === "defend") {
      text += " " + cardName(entry.target) + " " + T.logWith + " " + cardName(entry.cards[0]);
    } else if (entry.cards) {
      text += " " + entry.cards.map(cardName).join(", ");
    }
    return text;
  }

  function renderLog() {
    const list = $("log");
    const fresh = [];
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
      li.textContent = logText(entry);
      list.append(li);
      const own = state.role === "player" && entry.seat === state.seat;
      if (!own) fresh.push(logSpoken(entry));
    });
    list.scrollTop = list.scrollHeight;
    // Others' moves and, when it comes to this player, the prompt: for screen readers.
    if (announced && (fresh.length || turn.became)) {
      announce(fresh.concat(turn.mine ? [turn.text] : []));
    }
    announced = true;
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
  const adjudications = new Set(); // those of them that adjudicate
  const ALLOWED = {
    pause: ["active"],
    resume: ["paused"],
    void: ["active", "paused"],
    adjudicate: ["active", "paused"],
  };
  let rulingFor = null; // the game and players the place selects were built for
  let changes = 0; // counts the place choices, to tell which of two equal ones came later
  let confirming = null; // the adjudication shown in the confirmation dialog
  let ruled = false; // an adjudication of this page was recorded: the correction link shows

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
    relabelRuling();
    checkRuling();
    const correct = $("referee-correct");
    if (correct) correct.hidden = !ruled && state.status !== "adjudicated";
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

  // A seat's name in the ruling's choices, marked when its entry has left the event (the
  // server sends a referee each seat's standing: "" while present).
  function rulingName(seat) {
    const standing = (Array.isArray(state.seat_status) && state.seat_status[seat]) || "";
    if (!standing) return seatName(seat);
    return seatName(seat) + " " + (standing === "disqualified" ? T.disqualified : T.withdrawn);
  }

  // One select per place and one for the fool, all empty at first: the referee names every
  // place and the fool (a draw is a choice too). The choices stay across state messages of
  // the same game and are rebuilt for a new game.
  function buildRuling() {
    const key = state.game ? state.game + ":" + names().join("\n") : null;
    if (key === rulingFor) return;
    rulingFor = key;
    closeConfirm(false);
    const list = $("ruling-places");
    const fool = $("ruling-fool");
    list.replaceChildren();
    fool.replaceChildren(option("", T.choose), option("draw", T.nobody));
    names().forEach((_, place) => {
      const li = document.createElement("li");
      const label = document.createElement("label");
      const select = document.createElement("select");
      const error = document.createElement("span");
      error.className = "field-error";
      error.id = "ruling-place-error-" + place;
      select.dataset.place = place;
      select.setAttribute("aria-describedby", error.id);
      select.append(option("", T.choose));
      names().forEach((__, s) => select.append(option(s, rulingName(s))));
      select.value = "";
      select.addEventListener("change", () => {
        changes += 1;
        select.dataset.changed = String(changes);
        checkRuling();
      });
      label.append(T.place + " " + (place + 1) + " ", select);
      li.append(label, error);
      list.append(li);
      fool.append(option(place, rulingName(place)));
    });
  }

  // An entry may leave mid-game: the seats' marks follow each state, the choices stay.
  function relabelRuling() {
    [...placeSelects(), $("ruling-fool")].forEach((select) =>
      Array.from(select.options).forEach((opt) => {
        if (/^\d+$/.test(opt.value)) opt.textContent = rulingName(Number(opt.value));
      }),
    );
  }

  function setFieldError(select, error, text) {
    error.textContent = text;
    if (text) select.setAttribute("aria-invalid", "true");
    else select.removeAttribute("aria-invalid");
  }

  // The ruling as chosen, or null while it is incomplete or wrong; each problem is shown at
  // its select. Of two places naming one seat, the one chosen later is the wrong one.
  function checkRuling() {
    if (!panel || !$("ruling-places")) return null;
    const selects = placeSelects();
    let complete = selects.length > 0;
    let wrong = false;
    selects.forEach((select) => {
      let text = "";
      if (select.value === "") complete = false;
      else {
        const earlier = selects.some(
          (other) =>
            other !== select &&
            other.value === select.value &&
            Number(other.dataset.changed || 0) < Number(select.dataset.changed || 0),
        );
        if (earlier) {
          text = T.chosenTwice;
          wrong = true;
        }
      }
      setFieldError(select, $("ruling-place-error-" + select.dataset.place), text);
    });
    const foolSelect = $("ruling-fool");
    const foolValue = foolSelect.value;
    const places = selects.map((s) => Number(s.value));
    let foolText = "";
    if (foolValue === "") complete = false;
    else if (foolValue !== "draw" && complete && Number(foolValue) !== places[places.length - 1]) {
      foolText = T.foolLast;
      wrong = true;
    }
    setFieldError(foolSelect, $("ruling-fool-error"), foolText);
    const btn = $("btn-adjudicate");
    const allowed = online() && state && state.game && ALLOWED.adjudicate.includes(state.status);
    btn.disabled = !allowed || !complete || wrong;
    if (!complete || wrong) return null;
    return { places: places, fool: foolValue === "draw" ? null : Number(foolValue) };
  }

  function summary(chosen, reason) {
    return fill(T.rulingSummary, {
      places: chosen.places.map((seat, i) => i + 1 + ". " + rulingName(seat)).join(", "),
      fool: chosen.fool === null ? T.nobody : rulingName(chosen.fool),
      reason: reason,
    });
  }

  function closeConfirm(focusBack) {
    const dialog = $("ruling-confirm");
    if (!dialog) return;
    confirming = null;
    if (dialog.open) dialog.close();
    if (focusBack) $("btn-adjudicate").focus();
  }

  function sendReferee(message) {
    counter += 1;
    message.id = "r" + Date.now().toString(36) + "-" + counter;
    rulings.add(message.id);
    if (message.command === "adjudicate") adjudications.add(message.id);
    sayReferee("", false);
    send(message);
  }

  if (panel) {
    $("referee-form").addEventListener("submit", (event) => event.preventDefault());
    $("ruling-fool").addEventListener("change", () => checkRuling());
    panel.querySelectorAll("button[data-command]").forEach((btn) =>
      btn.addEventListener("click", () => {
        const reason = $("referee-reason").value.trim();
        if (!reason) {
          $("referee-reason").focus();
          return sayReferee(T.reasonNeeded, true);
        }
        const message = { type: "referee", command: btn.dataset.command, reason: reason };
        if (btn.dataset.command !== "adjudicate") return sendReferee(message);
        // An adjudication is final: it is shown as it will be written, and sent on Confirm.
        const chosen = checkRuling();
        if (!chosen) return sayReferee(T.placesOnce, true);
        message.places = chosen.places;
        message.fool = chosen.fool;
        confirming = message;
        $("ruling-summary").textContent = summary(chosen, reason);
        $("ruling-confirm").showModal();
        $("btn-ruling-back").focus();
      }),
    );
    $("btn-ruling-confirm").addEventListener("click", () => {
      const message = confirming;
      closeConfirm(false);
      if (message && online()) sendReferee(message);
    });
    $("btn-ruling-back").addEventListener("click", () => closeConfirm(true));
    // Esc closes the dialog natively: nothing is sent.
    $("ruling-confirm").addEventListener("close", () => (confirming = null));
  }

  // --- wiring -------------------------------------------------------------------------------

  $("btn-take").addEventListener("click", () => doSimple("take"));
  $("btn-pass").addEventListener("click", () => doSimple("pass"));
  $("btn-redeal").addEventListener("click", () => doSimple("redeal"));
  $("btn-transfer").addEventListener("click", () => doCardAction("transfer"));
  $("btn-show-trump").addEventListener("click", () => doCardAction("show_trump"));
  $("hand").addEventListener("keydown", (event) => moveFocus($("hand"), event));
  $("table").addEventListener("keydown", (event) => moveFocus($("table"), event));

  // T take, P pass, R transfer: by the key's place (event.code), so a Russian layout works too.
  const KEYS = { KeyT: "take", KeyP: "pass", KeyR: "transfer" };
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const field = event.target.closest && event.target.closest("input, select, textarea");
    if (field) return;
    if (event.key === "Escape") return cancelChoice();
    const type = KEYS[event.code];
    if (!type || !state || state.role !== "player") return;
    event.preventDefault();
    if (type === "transfer") doCardAction("transfer");
    else doSimple(type);
  });

  // The side parts (fair deal, log) fold away on a phone: the table comes first.
  if (window.matchMedia("(max-width: 700px), (max-height: 500px)").matches) {
    document.querySelectorAll(".side details").forEach((d) => (d.open = false));
  }
  window.addEventListener("resize", () => {
    if (state && state.view) fan($("hand"), $("hand").children.length);
  });
  setInterval(tick, 500);
  connect();
})();
