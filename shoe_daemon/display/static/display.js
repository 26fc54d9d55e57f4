// The table display: renders the daemon's public view, kept live over Server-Sent Events.
// The server only ever sends what the game has shown, so this file has nothing to hide:
// a card it receives as null is drawn face down. No pointer or key is needed (kiosk).
// Every word comes from /static/words.json (the daemon's view reads the same file), in the
// language and with the game's terms the view names.
"use strict";

const SUITS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
const RANKS = { T: "10" };
const ROWS = 6;
const DERIVED = [["big_eye_boy", "big-eye-boy", "ring"], ["small_road", "small-road", "dot"],
  ["cockroach_pig", "cockroach-pig", "slash"]];

const $ = (id) => document.getElementById(id);
let WORDS = null; // words.json
const FRENCH = { banco: "Banco", punto: "Punto", egalite: "\u00c9galit\u00e9", carte: "Carte",
  reste: "Reste" }; // until words.json is read
let drawnRoads = ""; // what the roads were last drawn for: redrawn only when it changes

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// ---- words -------------------------------------------------------------------------------

function fill(text, values) {
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in values ? String(values[name]) : m));
}

function wordsFor(view) {
  const language = WORDS && WORDS.words[view.language] ? view.language : "en";
  const terms = WORDS ? WORDS.terms[view.terms] || WORDS.terms.fr : FRENCH;
  const words = WORDS ? WORDS.words[language] : {};
  const t = (key, values) => fill(fill(words[key] || key, terms), values || {});
  t.terms = terms;
  t.language = language;
  return t;
}

// ---- cards and hands -----------------------------------------------------------------------

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

function renderHand(section, hand, side, name, winner, t) {
  section.querySelector(".side-name").textContent = name;
  const cards = section.querySelector(".cards");
  cards.replaceChildren(...(hand ? hand.cards : []).map((code, i) => {
    const node = cardNode(code, side + (i + 1));
    if (i === 2) node.classList.add("third");
    return node;
  }));
  section.querySelector(".total").textContent = hand ? totalWords(hand, t) : "";
  section.classList.toggle("winner", winner);
}

// A hand's total as shown: none until every card of it is public; a hand thrown into the
// discard counts bac (000 rule 15).
function totalWords(hand, t) {
  if (hand.total === null) return "";
  return hand.bac ? t("page.bac", { n: hand.total }) : String(hand.total);
}

function resultWords(coup, t) {
  switch (coup.outcome) {
    case "banker": return t("page.wins", { side: t.terms.banco });
    case "punter": return t("page.wins", { side: t.terms.punto });
    case "egalite": return t.terms.egalite;
    case "cancelled": return t("page.cancelled");
    case "void": return t("page.void");
    default: return "";
  }
}

function resultDetail(coup, t) {
  const parts = [];
  const p = coup.punter, b = coup.banker;
  if (p.natural || b.natural) {
    const best = Math.max(p.natural ? p.total : 0, b.natural ? b.total : 0);
    parts.push(t("page.natural", { n: best }));
  }
  if (["banker", "punter", "egalite"].includes(coup.outcome) && b.total !== null &&
      p.total !== null) {
    parts.push(t.terms.banco + " " + totalWords(b, t) + " \u2013 " + t.terms.punto + " " +
      totalWords(p, t));
  }
  if (coup.swiss_nine && coup.swiss_nine.length) {
    parts.push(t("page.swiss_nine") + ": " +
      coup.swiss_nine.map((bet) => t("page.swiss." + bet)).join(", "));
  }
  return parts;
}

// ---- roads ----------------------------------------------------------------------------------

function columnsThatFit(node) {
  const style = getComputedStyle(node);
  const cell = parseFloat(style.getPropertyValue("--cell")) || 30;
  const gap = parseFloat(style.columnGap) || 0;
  const pad = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
  return Math.max(1, Math.floor((node.clientWidth - pad + gap) / (cell + gap)));
}

// The last columns that fit, as casino boards scroll: a road never grows the page.
function renderRoad(node, cells, draw) {
  const columns = columnsThatFit(node);
  const last = cells.reduce((m, c) => Math.max(m, c.col), -1);
  const first = Math.max(0, last - columns + 1);
  const grid = new Map(cells.map((c) => [c.col * ROWS + c.row, c]));
  const nodes = [];
  for (let col = first; col < first + columns; col++) {
    for (let row = 0; row < ROWS; row++) {
      const cell = el("div", "cell");
      const c = grid.get(col * ROWS + row);
      if (c) {
        draw(cell, c);
        cell.dataset.col = String(col);
        cell.dataset.row = String(row);
      }
      nodes.push(cell);
    }
  }
  node.replaceChildren(...nodes);
}

function beadDrawer(t) {
  const letter = { B: t.terms.banco[0], P: t.terms.punto[0], E: t.terms.egalite[0] };
  return (cell, c) => {
    const bead = el("div", "bead " + c.winner + (c.natural ? " natural" : ""), letter[c.winner]);
    bead.dataset.winner = c.winner;
    cell.append(bead);
  };
}

function drawBigRoad(cell, c) {
  const ring = el("div", "ring " + c.winner + (c.natural ? " natural" : ""));
  ring.dataset.winner = c.winner;
  cell.append(ring);
  if (c.ties > 0) {
    cell.append(el("div", "tie"));
    if (c.ties > 1) cell.append(el("span", "tie-count", String(c.ties)));
  }
}

function markNode(shape, colour) {
  const mark = el("div", "mark " + shape + " " + colour);
  mark.dataset.colour = colour;
  return mark;
}

function renderRoads(view, t) {
  const h = view.history;
  const key = [view.shoe ? view.shoe.number : "", h.bead_plate.length, t.language, view.terms,
    window.innerWidth, window.innerHeight].join("/");
  if (key === drawnRoads) return;
  drawnRoads = key;
  renderRoad($("bead-plate"), h.bead_plate, beadDrawer(t));
  renderRoad($("big-road"), h.big_road, drawBigRoad);
  for (const [name, id, shape] of DERIVED) {
    renderRoad($(id), h[name], (cell, c) => cell.append(markNode(shape, c.colour)));
  }
  for (const [side, id] of [["B", "ask-b"], ["P", "ask-p"]]) {
    const marks = DERIVED.map(([name, , shape]) => {
      const colour = h.ask[side][name];
      const slot = el("span", "ask-slot");
      slot.dataset.road = name;
      if (colour) slot.append(markNode(shape, colour));
      return slot;
    });
    $(id).querySelector(".ask-marks").replaceChildren(...marks);
  }
}

// ---- the rest --------------------------------------------------------------------------------

function renderMoney(view, t) {
  const bank = view.bank, limits = view.limits;
  $("money").hidden = !bank && !limits;
  $("bank").hidden = !bank;
  if (bank) {
    $("bank-label").textContent = t("page.bank");
    $("bank-amount").textContent = bank.amount.text;
    $("bank-holder").textContent = bank.holder_seat ? t("page.bank_holder", { n: bank.holder_seat }) : "";
    $("banco").textContent = bank.banco_seat
      ? (bank.suivi ? t("page.suivi") + " \u2013 " : "") + t("page.banco_called", { n: bank.banco_seat })
      : "";
  }
  $("limits").hidden = !limits;
  if (limits) {
    $("limits-label").textContent = t("page.limits");
    $("limits-rows").replaceChildren(...limits.bets.map((row) => {
      const line = el("span", "limit");
      line.dataset.bet = row.bet;
      line.append(el("span", "bet", t("page.bet." + row.bet)),
        el("span", "range", t("page.limit", { min: row.minimum.text, max: row.maximum.text })));
      return line;
    }));
  }
}

function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

// The labels: set once, and again only if the language or the terms change.
let labelled = "";
function renderStatic(t, terms) {
  if (labelled === t.language + "/" + terms) return;
  labelled = t.language + "/" + terms;
  for (const node of document.querySelectorAll("[data-word]")) setText(node, t(node.dataset.word));
  for (const node of document.querySelectorAll(".side-b")) setText(node, t.terms.banco);
  for (const node of document.querySelectorAll(".side-p")) setText(node, t.terms.punto);
  for (const node of document.querySelectorAll(".side-e")) setText(node, t.terms.egalite);
  document.documentElement.lang = t.language === "zh" ? "zh-Hans" : t.language;
}

function render(view) {
  const body = document.body;
  if (!view || !view.table) {
    body.dataset.state = "starting";
    $("state-words").textContent = WORDS ? wordsFor({ language: "en", terms: "fr" })("page.starting") : "Starting";
    return;
  }
  const t = wordsFor(view);
  renderStatic(t, view.terms);
  const coup = view.coup;
  const shoe = view.shoe;
  body.dataset.state = view.state;
  body.dataset.game = view.game;
  body.dataset.coup = coup ? String(coup.number) : "";
  body.dataset.outcome = coup && coup.outcome ? coup.outcome : "";
  body.dataset.shoe = shoe ? String(shoe.number) : "";
  body.dataset.beads = String(view.history.bead_plate.length);
  $("table-name").textContent = view.table;
  $("house").textContent = view.house;
  $("shoe-no").textContent = shoe ? t("page.shoe", { n: shoe.number }) : t("page.no_shoe");
  $("coup-no").textContent = coup ? t("page.coup", { n: coup.number }) : "";
  $("cards-left").textContent = shoe ? t("page.cards_left", { n: shoe.cards_left }) : "";
  $("coups-left").textContent = shoe && !shoe.last_coup && !shoe.finished && shoe.coups_left !== null
    ? t("page.coups_left", { n: shoe.coups_left }) : "";
  const lastCoup = $("last-coup");
  lastCoup.hidden = !(shoe && (shoe.last_coup || shoe.finished));
  lastCoup.textContent = shoe && shoe.finished ? t("page.shoe_finished") : t("page.last_coup");
  const banner = $("banner");
  banner.hidden = !(shoe && (shoe.last_coup || shoe.finished));
  banner.textContent = shoe && shoe.finished ? t("page.shoe_finished_banner") : t("page.last_coup_banner");
  $("state-words").textContent = view.state_words;
  $("link").textContent = t("page.reconnecting");
  renderMoney(view, t);

  const outcome = coup ? coup.outcome : null;
  renderHand($("punter"), coup && coup.punter, "P", t.terms.punto, outcome === "punter", t);
  renderHand($("banker"), coup && coup.banker, "B", t.terms.banco, outcome === "banker", t);
  const result = $("result");
  result.className = outcome || "";
  $("result-words").textContent = outcome ? resultWords(coup, t) : "";
  $("result-detail").replaceChildren(
    ...(outcome ? resultDetail(coup, t) : []).map((line) => el("div", "", line)));

  const notices = coup ? coup.notices : [];
  $("notices").textContent = notices.map((n) => n.words + " (" + n.rule + ")").join("  \u2022  ");

  const hold = view.hold;
  $("hold").hidden = !hold;
  $("hold-title").textContent = hold ? hold.title : "";
  $("hold-words").textContent = hold ? hold.words : "";
  $("hold-rule").textContent = hold ? t("page.rule", { rule: hold.rule }) : "";

  const h = view.history;
  renderRoads(view, t);
  $("count-b").textContent = String(h.counts.banker);
  $("count-p").textContent = String(h.counts.punter);
  $("count-e").textContent = String(h.counts.egalite);
  $("count-n").textContent = String(h.counts.naturals);
  $("longest").textContent = t.terms.banco[0] + " " + h.streaks.longest.banker + " \u00b7 " +
    t.terms.punto[0] + " " + h.streaks.longest.punter;
  $("swiss").hidden = view.game !== "punto-banco";
  const hits = h.swiss_nine;
  const latest = hits[hits.length - 1];
  // A Swiss Nine win includes the lesser bets (003), so the highest names the win.
  $("swiss-count").textContent = String(hits.length);
  $("swiss-list").textContent = latest ? t("page.swiss_last", {
    coup: latest.coup, bet: t("page.swiss." + latest.bets[latest.bets.length - 1]) }) : "";
}

let current = null;

function connect() {
  const source = new EventSource("/api/events");
  source.addEventListener("state", (event) => {
    $("link").hidden = true;
    current = JSON.parse(event.data);
    render(current);
  });
  // EventSource reconnects by itself; the server starts each connection with the full state.
  source.onerror = () => { $("link").hidden = false; };
}

window.addEventListener("resize", () => { if (current) render(current); });

fetch("/static/words.json")
  .then((response) => response.json())
  .then((words) => { WORDS = words; })
  .catch(() => { WORDS = null; })
  .finally(connect);
