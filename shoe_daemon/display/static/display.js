// The table display: renders the daemon's public view, kept live over Server-Sent Events.
// The server only ever sends what the game has shown, so this file has nothing to hide:
// a card it receives as null is drawn face down. No pointer or key is needed (kiosk).
"use strict";

const SUITS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
const RANKS = { T: "10" };
const SIDES = {
  "chemin-de-fer": { punter: "Punter", banker: "Banker" },
  "punto-banco": { punter: "Punto", banker: "Banco" },
};
const BEAD_COLUMNS = 10;
const ROAD_COLUMNS = 24;

const $ = (id) => document.getElementById(id);

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function cardNode(code, position) {
  if (code === null) {
    const back = el("div", "card back");
    back.dataset.position = position;
    return back;
  }
  const card = el("div", "card" + ("DH".includes(code[1]) ? " red" : ""));
  card.dataset.position = position;
  card.dataset.code = code;
  card.append(el("span", "rank", RANKS[code[0]] || code[0]), el("span", "suit", SUITS[code[1]]));
  return card;
}

function renderHand(section, hand, side, name, winner) {
  section.querySelector(".side-name").textContent = name;
  const cards = section.querySelector(".cards");
  cards.replaceChildren(...(hand ? hand.cards : []).map((code, i) => {
    const node = cardNode(code, side + (i + 1));
    if (i === 2) node.classList.add("third");
    return node;
  }));
  section.querySelector(".total").textContent = hand ? totalWords(hand) : "";
  section.classList.toggle("winner", winner);
}

// A hand's total as shown: none until every card of it is public; a hand thrown into the
// discard counts bac (000 rule 15).
function totalWords(hand) {
  if (hand.total === null) return "";
  return hand.bac ? hand.total + " (bac)" : String(hand.total);
}

function resultWords(coup, names) {
  switch (coup.outcome) {
    case "banker": return names.banker + " wins";
    case "punter": return names.punter + " wins";
    case "egalite": return "Égalité";
    case "cancelled": return "Coup cancelled";
    case "void": return "Coup void";
    default: return "";
  }
}

function resultDetail(coup, names) {
  const parts = [];
  const p = coup.punter, b = coup.banker;
  if (p.natural || b.natural) {
    const best = Math.max(p.natural ? p.total : 0, b.natural ? b.total : 0);
    parts.push("Natural " + best);
  }
  if (["banker", "punter", "egalite"].includes(coup.outcome) && b.total !== null &&
      p.total !== null) {
    parts.push(names.banker + " " + totalWords(b) + " \u2013 " + names.punter + " " +
      totalWords(p));
  }
  if (coup.swiss_nine && coup.swiss_nine.length) {
    parts.push("Swiss Nine: " + coup.swiss_nine.join(", "));
  }
  return parts;
}

function renderRoad(node, cells, columns, draw) {
  const last = cells.reduce((m, c) => Math.max(m, c.col), -1);
  const first = Math.max(0, last - columns + 1);
  const grid = new Map(cells.map((c) => [c.col + ":" + c.row, c]));
  const nodes = [];
  for (let col = first; col < first + columns; col++) {
    for (let row = 0; row < 6; row++) {
      const cell = el("div", "cell");
      const c = grid.get(col + ":" + row);
      if (c) draw(cell, c);
      nodes.push(cell);
    }
  }
  node.replaceChildren(...nodes);
}

function drawBead(cell, c) {
  const bead = el("div", "bead " + c.winner + (c.natural ? " natural" : ""), c.winner);
  bead.dataset.winner = c.winner;
  cell.append(bead);
}

function drawRoad(cell, c) {
  const ring = el("div", "ring " + c.winner + (c.natural ? " natural" : ""));
  ring.dataset.winner = c.winner;
  cell.append(ring);
  if (c.ties > 0) {
    cell.append(el("div", "tie"));
    if (c.ties > 1) cell.append(el("span", "tie-count", String(c.ties)));
  }
}

function render(view) {
  const body = document.body;
  if (!view || !view.table) {
    body.dataset.state = "starting";
    return;
  }
  const names = SIDES[view.game] || SIDES["chemin-de-fer"];
  const coup = view.coup;
  body.dataset.state = view.state;
  body.dataset.coup = coup ? String(coup.number) : "";
  body.dataset.outcome = coup && coup.outcome ? coup.outcome : "";
  $("table-name").textContent = view.table;
  $("house").textContent = view.house;
  $("shoe-no").textContent = view.shoe ? "Shoe " + view.shoe.number : "No shoe";
  $("coup-no").textContent = coup ? "Coup " + coup.number : "";
  $("cards-left").textContent = view.shoe ? view.shoe.cards_left + " cards left" : "";
  const lastCoup = $("last-coup");
  lastCoup.hidden = !(view.shoe && (view.shoe.last_coup || view.shoe.finished));
  lastCoup.textContent = view.shoe && view.shoe.finished ? "SHOE FINISHED" : "LAST COUP";
  $("state-words").textContent = view.state_words;

  const outcome = coup ? coup.outcome : null;
  renderHand($("punter"), coup && coup.punter, "P", names.punter, outcome === "punter");
  renderHand($("banker"), coup && coup.banker, "B", names.banker, outcome === "banker");
  const result = $("result");
  result.className = outcome || "";
  $("result-words").textContent = outcome ? resultWords(coup, names) : "";
  $("result-detail").replaceChildren(
    ...(outcome ? resultDetail(coup, names) : []).map((line) => el("div", "", line)));

  const notices = coup ? coup.notices : [];
  $("notices").textContent = notices.map((n) => n.words + " (" + n.rule + ")").join("  \u2022  ");

  const hold = view.hold;
  $("hold").hidden = !hold;
  $("hold-words").textContent = hold ? hold.words : "";
  $("hold-rule").textContent = hold ? "Rule: " + hold.rule : "";

  const h = view.history;
  renderRoad($("bead-plate"), h.bead_plate, BEAD_COLUMNS, drawBead);
  renderRoad($("big-road"), h.big_road, ROAD_COLUMNS, drawRoad);
  document.querySelector("#counts .side-b").textContent = names.banker;
  document.querySelector("#counts .side-p").textContent = names.punter;
  $("count-b").textContent = String(h.counts.banker);
  $("count-p").textContent = String(h.counts.punter);
  $("count-e").textContent = String(h.counts.egalite);
  $("swiss").hidden = view.game !== "punto-banco";
  const hits = h.swiss_nine;
  const latest = hits[hits.length - 1];
  // A Swiss Nine win includes the lesser bets (003), so the highest names the win.
  $("swiss-count").textContent = String(hits.length);
  $("swiss-list").textContent = latest
    ? "last: coup " + latest.coup + ", " + latest.bets[latest.bets.length - 1] : "";
}

function connect() {
  const source = new EventSource("/api/events");
  source.addEventListener("state", (event) => {
    $("link").hidden = true;
    render(JSON.parse(event.data));
  });
  // EventSource reconnects by itself; the server starts each connection with the full state.
  source.onerror = () => { $("link").hidden = false; };
}

connect();
