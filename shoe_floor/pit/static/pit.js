// The pit's board: one tile per table, kept live over one Server-Sent Events stream.
// Each tile relays the table's public view, which never holds a face-down card: a card that
// arrives as null is drawn face down, and nothing here could know its code.
//
// Cheap enough for a few hundred tables dealing at once: what arrives is kept per table and
// drawn at most once per animation frame, each tile with its latest data (a burst is one
// drawing); a tile is built once, and then only the parts whose data changed are drawn again
// (a reading of the store moves the counts in the foot alone; the road and the beads change
// with a result, the cards with a card); the road's cells stay, and only those whose mark
// changed are redrawn. Tiles off screen are neither laid out nor painted (pit.css:
// content-visibility).
"use strict";

const SUITS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
const RANKS = { T: "10" };
// The game's terms are the table's own (the tile's `terms`, from the words file in the
// table's language): the same word as its state's.
const FRENCH = { banco: "Banco", punto: "Punto", egalite: "\u00c9galit\u00e9" };
const terms = (t) => t.terms || FRENCH;
const LAMPS = { ready: "READY", waiting: "WAITING", hold: "HOLD", offline: "OFFLINE",
                unknown: "NO STATE" };
// Why a message of the table's was not shown (the check's alarm kinds, docs/floor.md).
const REFUSED = {
  unsigned: "not signed", "unknown-key": "signed with a key not lodged for the table",
  "bad-signature": "its signature does not verify", malformed: "not a message of its kind",
  stale: "older than the table's newest: replayed",
  "not-current": "the table's newer view has not arrived",
};
const ROAD_COLUMNS = 26;
const ROAD_ROWS = 6;

const $ = (id) => document.getElementById(id);
const collator = new Intl.Collator(undefined, { numeric: true });
const tiles = new Map(); // table -> its tile: { node, parts, cells, marks, keys, data }
const waiting = new Map(); // table -> its latest data, not drawn yet
let frame = 0; // the animation frame asked for, while one is
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
  const hidden = elapsed < Number(span.dataset.after || 0);
  const text = span.dataset.prefix + age(elapsed);
  if (span.hidden !== hidden) span.hidden = hidden;
  if (span.textContent !== text) span.textContent = text;
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
    case "banker": return names.banco + " " + b.total + "\u2013" + p.total;
    case "punter": return names.punto + " " + p.total + "\u2013" + b.total;
    case "egalite": return names.egalite + " " + p.total;
    case "cancelled": return "Cancelled";
    case "void": return "Void";
    default: return "";
  }
}

const count = (n) => n.toLocaleString("en");

// The backlog: what the table has committed that the store does not hold. While the table is
// offline its last report is all the pit knows: "at least".
function backlogWords(n, atLeast) {
  return "backlog " + (atLeast ? "\u2265 " : "") + count(n);
}

// ---- a tile's parts, top to bottom: each is drawn again only when what it shows changed -----

// What the page did not show of the table, and why: its hover says which, why, when.
function unverifiedBadge(list) {
  const badge = el("span", "unverified", "UNVERIFIED");
  badge.title = list.map((u) => u.topic + ": " + (REFUSED[u.kind] || u.kind) +
    (u.at ? " (" + new Date(u.at).toISOString().slice(11, 19) + " UTC)" : "")).join("\n");
  return badge;
}

function drawTop(node, t) {
  node.replaceChildren(
    el("span", "name", t.name || t.table),
    el("span", "house", [t.house, t.name && t.name !== t.table ? t.table : ""]
      .filter(Boolean).join(" \u00b7 ")));
  if (t.unverified && t.unverified.length) node.append(unverifiedBadge(t.unverified));
  node.append(el("span", "lamp " + t.lamp, LAMPS[t.lamp] || t.lamp));
}

function drawShoe(node, t) {
  const parts = [];
  if (t.shoe) {
    parts.push(el("span", "", "Shoe " + t.shoe.number + (t.coup ? " \u00b7 Coup " + t.coup.number : "")),
               el("span", "left", t.shoe.cards_left + " left"));
    if (t.shoe.finished) parts.push(el("span", "badge", "SHOE FINISHED"));
    else if (t.shoe.last_coup) parts.push(el("span", "badge", "LAST COUP"));
  } else {
    parts.push(el("span", "left", t.state ? "No shoe" : "No state from the table yet"));
  }
  node.replaceChildren(...parts);
}

function drawState(node, t) {
  const names = terms(t);
  node.replaceChildren(el("span", "words", t.hold ? t.hold.words : (t.state_words || "")));
  if (t.coup && t.coup.outcome) {
    node.append(el("span", "outcome " + t.coup.outcome, outcomeWords(t.coup, names)));
  }
}

function drawCoup(node, t) {
  const names = terms(t);
  node.replaceChildren(...(t.coup ? [...hand(t.coup.punter, "p", names.punto.charAt(0)),
                                     ...hand(t.coup.banker, "b", names.banco.charAt(0))] : []));
}

function drawAlert(line, t) {
  line.className = "alert";
  delete line.dataset.hold;
  line.replaceChildren();
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
}

function drawBeads(node, t) {
  node.replaceChildren(...(t.results || []).map((b) => {
    const bead = el("span", "bead " + b.winner + (b.natural ? " natural" : ""), String(b.total));
    bead.dataset.winner = b.winner;
    return bead;
  }));
}

function drawFoot(f, t) {
  const s = t.store;
  const backlog = el("span", s.backlog ? "warn" : "", backlogWords(s.backlog, s.at_least));
  backlog.dataset.backlog = String(s.backlog);
  if (t.reported) {
    backlog.title = "The table's last report, " + new Date(t.reported.at).toISOString()
      .slice(11, 19) + " UTC by its clock: ledger at #" + count(t.reported.head) +
      ", the broker had acknowledged every record through #" + count(t.reported.acked);
  }
  f.replaceChildren(backlog);
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
}

// [class, what the part shows (drawn again when this changes), how it is drawn]
const PARTS = [
  ["top", (t) => [t.name, t.house, t.table, t.lamp, t.unverified], drawTop],
  ["shoe", (t) => [t.shoe, t.coup ? t.coup.number : null, Boolean(t.state)], drawShoe],
  ["state", (t) => [t.terms, t.hold ? t.hold.words : t.state_words,
                    t.coup && t.coup.outcome ? [t.coup.outcome, t.coup.punter, t.coup.banker]
                                             : null], drawState],
  ["coup", (t) => [t.terms, t.coup ? [t.coup.punter, t.coup.banker] : null], drawCoup],
  ["alert", (t) => [t.lamp === "offline", t.online_since, t.hold, t.notices], drawAlert],
  ["beads", (t) => t.results || [], drawBeads],
  ["road", null, null],
  ["foot", (t) => [t.store, t.reported, t.alarms], drawFoot],
];

function makeTile(table) {
  const node = el("article", "tile");
  node.dataset.table = table;
  const parts = {};
  for (const [name] of PARTS) {
    parts[name] = el("div", name);
    node.append(parts[name]);
  }
  // The big road's cells, made once: column by column, six rows each.
  const cells = [];
  for (let i = 0; i < ROAD_COLUMNS * ROAD_ROWS; i++) cells.push(el("div", "cell"));
  parts.road.append(...cells);
  return { node, parts, cells, marks: cells.map(() => ""), keys: {}, data: null };
}

// Only the cells whose mark changed: a result adds one, a full road shifts them all.
function drawRoad(tile, road) {
  const at = new Map(road.map((c) => [c.col * ROAD_ROWS + c.row, c]));
  tile.cells.forEach((cell, i) => {
    const c = at.get(i);
    const mark = c ? c.winner + (c.natural ? " natural" : "") + (c.ties > 0 ? " tie" : "") : "";
    if (tile.marks[i] === mark) return;
    tile.marks[i] = mark;
    cell.replaceChildren();
    if (!c) return;
    const ring = el("div", "ring " + c.winner + (c.natural ? " natural" : ""));
    ring.dataset.winner = c.winner;
    cell.append(ring);
    if (c.ties > 0) cell.append(el("div", "tie"));
  });
}

function setData(node, name, value) {
  if (node.dataset[name] !== value) node.dataset[name] = value;
}

function draw(tile, t) {
  const node = tile.node;
  setData(node, "lamp", t.lamp);
  setData(node, "unverified", (t.unverified || []).map((u) => u.topic + ":" + u.kind).join(" "));
  setData(node, "alarm", t.alarms.serious ? "serious" : "");
  setData(node, "shoe", t.shoe ? String(t.shoe.number) : "");
  setData(node, "coup", t.coup ? String(t.coup.number) : "");
  setData(node, "tip", String(t.store.tip));
  setData(node, "backlog", String(t.store.backlog));
  setData(node, "atLeast", t.store.at_least ? "yes" : "");
  setData(node, "toSend", String(t.store.to_send));
  for (const [name, shows, drawPart] of PARTS) {
    if (!shows) continue;
    const key = JSON.stringify(shows(t));
    if (tile.keys[name] === key) continue;
    tile.keys[name] = key;
    drawPart(tile.parts[name], t);
  }
  if (!tile.data || tile.data.road !== t.road) drawRoad(tile, t.road || []);
  tile.data = t;
}

function place(t) {
  let tile = tiles.get(t.table);
  if (tile) {
    draw(tile, t);
    return;
  }
  tile = makeTile(t.table);
  draw(tile, t);
  const names = [...tiles.keys(), t.table].sort(collator.compare);
  const next = names[names.indexOf(t.table) + 1];
  $("tiles").insertBefore(tile.node, next ? tiles.get(next).node : null);
  tiles.set(t.table, tile);
}

// ---- what arrives: kept per table, drawn at the next animation frame -----------------------

function latest(table) {
  if (waiting.has(table)) return waiting.get(table);
  const tile = tiles.get(table);
  return tile ? tile.data : null;
}

function arrived(t) {
  waiting.set(t.table, t);
  if (!frame) frame = requestAnimationFrame(drawWaiting);
}

function drawWaiting() {
  frame = 0;
  const batch = [...waiting.values()];
  waiting.clear();
  batch.forEach(place);
}

function floor(f) {
  offset = f.now - Date.now();
  const summary = $("summary");
  summary.replaceChildren(el("span", "", f.tables + " tables"));
  for (const [n, words] of [[f.offline, "offline"], [f.held, "held"],
                            [f.alarms, "with chain alarms"], [f.unverified, "unverified"]]) {
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
  // The whole board: first on each connection. It replaces whatever was waiting.
  source.addEventListener("tiles", (event) => {
    const data = JSON.parse(event.data);
    waiting.clear();
    const names = new Set(data.tiles.map((t) => t.table));
    for (const [table, tile] of tiles) {
      if (!names.has(table)) {
        tile.node.remove();
        tiles.delete(table);
      }
    }
    floor(data.floor);
    data.tiles.forEach(place);
  });
  source.addEventListener("tile", (event) => {
    const data = JSON.parse(event.data);
    offset = data.now - Date.now();
    arrived(data.tile);
  });
  // The counts alone of some tables: each merged into the latest the page has of its tile.
  source.addEventListener("foot", (event) => {
    const data = JSON.parse(event.data);
    offset = data.now - Date.now();
    for (const f of data.feet) {
      const t = latest(f.table);
      if (t) arrived({ ...t, store: f.store, reported: f.reported, alarms: f.alarms });
    }
  });
  source.addEventListener("floor", (event) => floor(JSON.parse(event.data)));
  // EventSource reconnects by itself; each connection starts with the whole board. A
  // session that ended (401) closes it for good: then the sign-in screen.
  source.onerror = () => {
    document.body.dataset.link = "reconnecting";
    fetch("/api/me", { credentials: "same-origin" }).then((r) => {
      if (r.status === 401) {
        source.close();
        tiles.clear();
        waiting.clear();
        sessionOver();
      }
    }).catch(() => {});
  };
}

setInterval(() => {
  document.querySelectorAll("[data-since]").forEach(tick);
  $("clock").textContent = new Date(now()).toISOString().slice(11, 19) + " UTC";
}, 1000);
whenSignedIn(connect);
