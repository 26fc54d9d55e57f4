// The pit's board: one tile per table, kept live over one Server-Sent Events stream.
// Each tile relays the table's public view, which never holds a face-down card: a card that
// arrives as null is drawn face down, and nothing here could know its code.
"use strict";

const SUITS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
const RANKS = { T: "10" };
const SIDES = {
  "chemin-de-fer": { punter: "Punter", banker: "Banker", p: "P", b: "B" },
  "punto-banco": { punter: "Punto", banker: "Banco", p: "P", b: "B" },
};
const LAMPS = { ready: "READY", waiting: "WAITING", hold: "HOLD", offline: "OFFLINE",
                unknown: "NO STATE" };
const ROAD_COLUMNS = 26;

const $ = (id) => document.getElementById(id);
const collator = new Intl.Collator(undefined, { numeric: true });
const tiles = new Map(); // table -> its <article>
let offset = 0; // the server's clock minus ours, ms

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

function now() { return Date.now() + offset; }

function age(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return s + " s";
  if (s < 3600) return Math.floor(s / 60) + " min " + String(s % 60).padStart(2, "0") + " s";
  const h = Math.floor(s / 3600);
  if (h < 48) return h + " h " + String(Math.floor((s % 3600) / 60)).padStart(2, "0") + " min";
  return Math.floor(h / 24) + " days";
}

// A span whose text ends with the time since `since` (ms, server clock), kept by the ticker;
// with `after`, shown only once that much time has passed.
function since(className, prefix, at, after) {
  const span = el("span", className);
  span.dataset.since = String(at);
  span.dataset.prefix = prefix;
  if (after) span.dataset.after = String(after);
  tick(span);
  return span;
}

function tick(span) {
  const elapsed = now() - Number(span.dataset.since);
  const after = Number(span.dataset.after || 0);
  span.hidden = elapsed < after;
  span.textContent = span.dataset.prefix + age(elapsed);
}

function cardNode(code, position) {
  if (code === null) {
    const back = el("span", "card back");
    back.dataset.position = position;
    return back;
  }
  const card = el("span", "card" + ("DH".includes(code[1]) ? " red" : ""),
                  (RANKS[code[0]] || code[0]) + SUITS[code[1]]);
  card.dataset.position = position;
  card.dataset.code = code;
  return card;
}

function hand(h, side, label) {
  const out = [el("span", "side " + side, label)];
  const cards = el("span", "hand");
  (h ? h.cards : []).forEach((code, i) => cards.append(cardNode(code, side.toUpperCase() + (i + 1))));
  out.push(cards);
  out.push(el("span", "total", h && h.total !== null ? String(h.total) : ""));
  return out;
}

function outcomeWords(coup, names) {
  const p = coup.punter, b = coup.banker;
  switch (coup.outcome) {
    case "banker": return names.banker + " " + b.total + "\u2013" + p.total;
    case "punter": return names.punter + " " + p.total + "\u2013" + b.total;
    case "egalite": return "\u00c9galit\u00e9 " + p.total;
    case "cancelled": return "Cancelled";
    case "void": return "Void";
    default: return "";
  }
}

function road(cells) {
  const node = el("div", "road");
  const grid = new Map(cells.map((c) => [c.col + ":" + c.row, c]));
  for (let col = 0; col < ROAD_COLUMNS; col++) {
    for (let row = 0; row < 6; row++) {
      const cell = el("div", "cell");
      const c = grid.get(col + ":" + row);
      if (c) {
        const ring = el("div", "ring " + c.winner + (c.natural ? " natural" : ""));
        ring.dataset.winner = c.winner;
        cell.append(ring);
        if (c.ties > 0) cell.append(el("div", "tie"));
      }
      node.append(cell);
    }
  }
  return node;
}

function alertLine(t) {
  const line = el("div", "alert");
  if (t.lamp === "offline") {
    line.className = "alert offline";
    line.append(t.online_since ? since("", "OFFLINE ", t.online_since) : el("span", "", "OFFLINE"));
    if (t.hold) line.append(el("span", "", " \u00b7 was held: " + t.hold.words));
  } else if (t.hold) {
    line.className = "alert hold";
    line.append(t.hold.since ? since("", "HELD ", t.hold.since) : el("span", "", "HELD"));
    line.append(el("span", "", " \u00b7 " + t.hold.rule));
    line.dataset.hold = t.hold.code;
  } else if (t.notices && t.notices.length) {
    line.className = "alert notice";
    line.textContent = t.notices.map((n) => n.words + " (" + n.rule + ")").join(" \u2022 ");
  }
  return line;
}

const count = (n) => n.toLocaleString("en");

// The backlog: what the table has committed that the store does not hold. While the table is
// offline its last report is all the pit knows: "at least".
function backlogWords(n, atLeast) {
  return "backlog " + (atLeast ? "\u2265 " : "") + count(n);
}

function foot(t) {
  const f = el("div", "foot");
  const s = t.store;
  const backlog = el("span", s.backlog ? "warn" : "", backlogWords(s.backlog, s.at_least));
  backlog.dataset.backlog = String(s.backlog);
  if (t.reported) {
    backlog.title = "The table's last report, " + new Date(t.reported.at).toISOString()
      .slice(11, 19) + " UTC by its clock: ledger at #" + count(t.reported.head) +
      ", the broker had acknowledged every record through #" + count(t.reported.acked);
  }
  f.append(backlog);
  // The table's own count, in the words of `shoe-daemon status`; gone with the table.
  if (s.to_send && !s.at_least) f.append(el("span", "warn", count(s.to_send) + " to send"));
  if (s.gap_at) f.append(el("span", "warn", "gap at #" + s.gap_at));
  if (s.behind_since) f.append(since("warn", "store behind ", s.behind_since, s.grace_ms));
  const a = t.alarms;
  if (a.count) {
    f.append(el("span", a.serious ? "bad" : "warn",
                a.count + (a.count === 1 ? " alarm" : " alarms") + " (" + a.last.kind + ")"));
  }
  f.append(el("span", "stored", s.tip ? "stored #" + s.tip.toLocaleString("en") : "nothing stored"));
  return f;
}

function render(t) {
  const names = SIDES[t.game] || SIDES["chemin-de-fer"];
  const tile = el("article", "tile");
  tile.dataset.table = t.table;
  tile.dataset.lamp = t.lamp;
  tile.dataset.alarm = t.alarms.serious ? "serious" : "";
  tile.dataset.shoe = t.shoe ? String(t.shoe.number) : "";
  tile.dataset.coup = t.coup ? String(t.coup.number) : "";
  tile.dataset.tip = String(t.store.tip);
  tile.dataset.backlog = String(t.store.backlog);
  tile.dataset.atLeast = t.store.at_least ? "yes" : "";
  tile.dataset.toSend = String(t.store.to_send);
  const top = el("div", "top");
  top.append(el("span", "name", t.name || t.table),
             el("span", "house", [t.house, t.name && t.name !== t.table ? t.table : ""]
               .filter(Boolean).join(" \u00b7 ")),
             el("span", "lamp " + t.lamp, LAMPS[t.lamp] || t.lamp));
  tile.append(top);
  const shoe = el("div", "shoe");
  if (t.shoe) {
    shoe.append(el("span", "", "Shoe " + t.shoe.number + (t.coup ? " \u00b7 Coup " + t.coup.number : "")),
                el("span", "left", t.shoe.cards_left + " left"));
    if (t.shoe.finished) shoe.append(el("span", "badge", "SHOE FINISHED"));
    else if (t.shoe.last_coup) shoe.append(el("span", "badge", "LAST COUP"));
  } else {
    shoe.append(el("span", "left", t.state ? "No shoe" : "No state from the table yet"));
  }
  const state = el("div", "state");
  state.append(el("span", "words", t.hold ? t.hold.words : (t.state_words || "")));
  if (t.coup && t.coup.outcome) {
    state.append(el("span", "outcome " + t.coup.outcome, outcomeWords(t.coup, names)));
  }
  const coup = el("div", "coup");
  if (t.coup) {
    coup.append(...hand(t.coup.punter, "p", names.p), ...hand(t.coup.banker, "b", names.b));
  }
  tile.append(shoe, state, coup, alertLine(t));
  const beads = el("div", "beads");
  (t.results || []).forEach((b) => {
    const bead = el("span", "bead " + b.winner + (b.natural ? " natural" : ""), String(b.total));
    bead.dataset.winner = b.winner;
    beads.append(bead);
  });
  tile.append(beads, road(t.road || []), foot(t));
  return tile;
}

function place(t) {
  const fresh = render(t);
  const old = tiles.get(t.table);
  if (old) {
    old.replaceWith(fresh);
  } else {
    const names = [...tiles.keys(), t.table].sort(collator.compare);
    const next = names[names.indexOf(t.table) + 1];
    $("tiles").insertBefore(fresh, next ? tiles.get(next) : null);
  }
  tiles.set(t.table, fresh);
}

function floor(f) {
  offset = f.now - Date.now();
  const summary = $("summary");
  summary.replaceChildren(el("span", "", f.tables + " tables"));
  for (const [n, words] of [[f.offline, "offline"], [f.held, "held"],
                            [f.alarms, "with chain alarms"]]) {
    summary.append(el("span", n ? "bad" : "", " \u00b7 " + n + " " + words));
  }
  const backlog = el("span", f.backlog ? "bad" : "",
                     " \u00b7 " + backlogWords(f.backlog, f.backlog_at_least));
  backlog.id = "backlog";
  summary.append(backlog);
  $("broker").classList.toggle("down", !f.broker);
  $("broker").textContent = f.broker ? "broker" : "broker unreachable";
  $("store").classList.toggle("down", !f.store.ok);
  $("store").textContent = f.store.ok ? "store" : "store: " + (f.store.error || "not read yet");
  document.body.dataset.link = "live";
}

function connect() {
  const source = new EventSource("/api/events");
  source.addEventListener("tiles", (event) => {
    const data = JSON.parse(event.data);
    tiles.clear();
    $("tiles").replaceChildren();
    floor(data.floor);
    data.tiles.forEach(place);
  });
  source.addEventListener("tile", (event) => {
    const data = JSON.parse(event.data);
    offset = data.now - Date.now();
    place(data.tile);
  });
  source.addEventListener("floor", (event) => floor(JSON.parse(event.data)));
  // EventSource reconnects by itself; each connection starts with the whole board.
  source.onerror = () => { document.body.dataset.link = "reconnecting"; };
}

setInterval(() => {
  document.querySelectorAll("[data-since]").forEach(tick);
  $("clock").textContent = new Date(now()).toISOString().slice(11, 19) + " UTC";
}, 1000);
connect();
