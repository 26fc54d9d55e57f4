// The croupier's console page: it renders what the console's API gives and sends the
// actions the croupier takes, each with a fresh request id. Everything shown goes through
// textContent: a reason typed by a person is text, never markup.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const SUITS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
  const RANKS = "A23456789TJQK";
  const IN_PLAY = ["dealing", "punter_to_declare", "punter_drawing", "banker_to_play", "on_hold"];
  const OUTCOMES = { banker: "Banker wins", punter: "Punter wins", egalite: "\u00c9galit\u00e9",
    cancelled: "Coup cancelled", void: "Coup void" };
  const TITLES = {
    WRONG_ORDER: "Card in the wrong place", UNREADABLE_CARD: "Unreadable card",
    FOREIGN_CARD: "Foreign card", DECLARATION_MISSING: "Declaration missing",
    COUP_NOT_FINISHED: "New deal inside a coup", FAUX_TIRAGE: "Faux tirage: the banker chooses",
    JAM: "Shoe jammed", READER: "Card reader fault", COVER_OPEN: "Shoe cover open",
    POWER_LOW: "Shoe power low", BANKER_CARD_LOST: "The banker's card lost in the discard",
  };
  const REASONS = {
    WRONG_ORDER: ["Card moved to its place", "Checked with the players"],
    UNREADABLE_CARD: ["Card keyed in from its face"],
    FOREIGN_CARD: ["Foreign card taken out of play"],
    DECLARATION_MISSING: ["The punter declared aloud"],
    COUP_NOT_FINISHED: ["The early press is ignored"],
    FAUX_TIRAGE: ["Redressed as the rule says"],
    JAM: ["Jam cleared by hand"], READER: ["Reader checked"], COVER_OPEN: ["Cover closed, shoe checked"],
    POWER_LOW: ["Power restored"],
    BANKER_CARD_LOST: ["Checked the discard: it cannot be told", "Recognised in the discard"],
  };
  const WAY_WORDS = { OK: "OK", ENTER: "Key in the card", CARTE: "Carte", RESTE: "Reste",
    STAND: "Stand", DISMISS: "Dismiss" };
  const CODE_WAY_WORDS = { BANKER_CARD_LOST: { OK: "Uphold: the coup is lost to the banker",
    DISMISS: "Dismiss: play goes on" } };
  // What only the croupier sees (000 rules 15, 11, 10, 4): each report's title and reasons.
  const REPORT_TITLES = {
    punter_bac: "The punter threw his cards into the discard",
    banker_card_lost: "The banker threw a card into the discard, unrecognisable",
    card_fell: "A card fell from the table",
    partner_objection: "The banker's partner objects to his play",
  };
  const REPORT_REASONS = {
    punter_bac: ["Threw his cards into the discard"],
    banker_card_lost: ["Thrown into the discard face down", "Mixed with the discards"],
    card_fell: ["Picked up by the croupier", "Picked up by the inspector"],
    partner_objection: ["Objected to the banker's draw", "Objected to the banker's stand"],
  };

  let me = null;
  let stream = null;
  let shared = null;
  let tab = "table";
  let pinFor = null;
  let pin = "";
  const latchUi = new Map(); // latch id -> its element and what was chosen on it
  const reportUi = new Map(); // report kind -> its element and what was chosen on it

  const newId = () => (crypto.randomUUID ? crypto.randomUUID()
    : Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join(""));

  async function call(method, path, body) {
    const init = { method, headers: {}, credentials: "same-origin" };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(path, init);
    } catch (e) {
      return { status: 0, data: { error: "the console does not answer" } };
    }
    let data = null;
    try { data = await response.json(); } catch (e) { data = null; }
    return { status: response.status, data: data || {} };
  }

  let toastTimer = null;
  function toast(text, kind) {
    const t = $("toast");
    t.textContent = text;
    t.dataset.kind = kind || "ok";
    t.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { t.hidden = true; }, kind === "error" ? 8000 : 3000);
  }

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function card(code, small) {
    const c = el("div", "card" + (small ? " small" : ""));
    if (code === null || code === undefined) {
      c.classList.add("back");
      c.dataset.back = "1";
      return c;
    }
    c.dataset.code = code;
    if (code === "??") { c.textContent = "??"; return c; }
    const rank = code[0] === "T" ? "10" : code[0];
    c.textContent = rank + SUITS[code[1]];
    if (code[1] === "D" || code[1] === "H") c.classList.add("red");
    return c;
  }

  function show(name) {
    document.body.dataset.screen = name;
    for (const id of ["sign-in", "desk", "recall"]) $(id).hidden = id !== name;
    $("tabs").hidden = !me;
    $("sign-out").hidden = !me;
    for (const b of document.querySelectorAll(".tab")) {
      b.setAttribute("aria-pressed", String(b.dataset.tab === (name === "recall" ? "recall" : "table")));
    }
  }

  // ---- signing in and out ------------------------------------------------------------------

  async function showSignIn(why) {
    me = null;
    if (stream) { stream.close(); stream = null; }
    document.body.dataset.role = "";
    $("me").textContent = "";
    show("sign-in");
    if (why) toast(why, "error");
    const r = await call("GET", "/api/people");
    const tiles = $("people");
    tiles.replaceChildren();
    for (const p of (r.data.people || [])) {
      if (!p.pin) continue;
      const b = el("button", "person", p.name);
      b.dataset.person = p.id;
      b.addEventListener("click", () => openPad(p));
      tiles.append(b);
    }
  }

  function openPad(person) {
    pinFor = person.id;
    pin = "";
    $("pin-for").textContent = `PIN for ${person.name}`;
    $("pin-dots").textContent = "";
    $("people").hidden = true;
    $("pin-pad").hidden = false;
  }

  function closePad() {
    pinFor = null;
    pin = "";
    $("pin-pad").hidden = true;
    $("people").hidden = false;
  }

  async function signIn(fields) {
    const r = await call("POST", "/api/sign-in", { id: newId(), ...fields });
    pin = "";
    $("pin-dots").textContent = "";
    if (r.status === 200) {
      closePad();
      $("badge").value = "";
      signedIn(r.data.me);
    } else {
      toast(r.data.error || `sign-in refused (${r.status})`, "error");
    }
  }

  function signedIn(who) {
    me = who;
    $("me").textContent = `${who.name} \u00b7 ${who.role}`;
    document.body.dataset.role = who.role;
    document.body.dataset.person = who.person;
    show(tab === "recall" ? "recall" : "desk");
    openStream();
    if (tab === "recall") loadRecall();
  }

  function openStream() {
    if (stream) stream.close();
    stream = new EventSource("/api/events");
    stream.addEventListener("state", (e) => {
      shared = JSON.parse(e.data);
      render();
    });
    stream.onerror = async () => {
      const r = await call("GET", "/api/me");
      if (r.status === 401) showSignIn(r.data.error);
    };
  }

  async function signOut() {
    const r = await call("POST", "/api/sign-out", { id: newId() });
    if (r.status === 200 || r.status === 401) {
      toast("Signed out");
      showSignIn();
    } else {
      toast(r.data.error || `sign-out failed (${r.status})`, "error");
    }
  }

  // ---- the table ----------------------------------------------------------------------------

  function render() {
    if (!shared || !me) return;
    const view = shared.view || {};
    const con = shared.console || { latches: [], key_refusals: [] };
    document.body.dataset.state = view.state || "starting";
    document.body.dataset.latches = String(con.latches.length);
    $("table-name").textContent = view.table ? `${view.table} \u00b7 ${view.house}` : "Console";
    $("where").textContent = view.shoe ? `Shoe ${view.shoe.number}` +
      (view.coup ? ` \u00b7 coup ${view.coup.number}` : "") : "";
    $("lamp").dataset.colour = con.lamp || "";
    $("state-words").textContent = con.latches.length && view.state !== "on_hold"
      ? `${view.state_words || ""} \u2014 waiting for the console` : (view.state_words || "Starting");
    const punto = view.game === "punto-banco";
    for (const side of ["punter", "banker"]) {
      const box = $(side);
      box.querySelector(".side-name").textContent = punto ? (side === "punter" ? "Punto" : "Banco")
        : (side === "punter" ? "Punter" : "Banker");
      const hand = view.coup ? view.coup[side] : null;
      box.querySelector(".cards").replaceChildren(...(hand ? hand.cards.map((c) => card(c)) : []));
      box.querySelector(".total").textContent = hand && hand.total !== null
        ? String(hand.total) + (hand.bac ? " (bac)" : "") : "";
    }
    $("coup-line").textContent = view.coup ? `Coup ${view.coup.number}` +
      (view.coup.last ? " (last coup)" : "") : "";
    $("outcome").textContent = view.coup && view.coup.outcome ? OUTCOMES[view.coup.outcome] : "";
    renderLatches(con.latches);
    renderReports(con.reports || []);
    const refusals = $("refusals");
    refusals.replaceChildren(...con.key_refusals.map((r) => el("p", "refusal",
      `A badge at the shoe was refused: ${r.why}. The hold stays.`)));
    $("void-panel").hidden = !(me.role === "supervisor" && IN_PLAY.includes(view.state));
  }

  function renderLatches(latches) {
    const box = $("latches");
    $("no-latch").hidden = latches.length > 0;
    const ids = new Set(latches.map((l) => l.id));
    for (const [id, ui] of latchUi) {
      if (!ids.has(id)) { ui.node.remove(); latchUi.delete(id); }
    }
    for (const latch of latches) {
      let ui = latchUi.get(latch.id);
      if (!ui) {
        ui = makeLatch(latch);
        latchUi.set(latch.id, ui);
        box.append(ui.node);
      }
      updateLatch(ui, latch);
    }
  }

  function makeLatch(latch) {
    const node = $("latch-template").content.firstElementChild.cloneNode(true);
    node.dataset.latch = latch.id;
    const ui = { node, latch, way: null, rank: null, suit: null };
    const chips = node.querySelector(".chips");
    for (const text of (REASONS[latch.code] || [])) {
      const b = el("button", "chip", text);
      b.addEventListener("click", () => {
        node.querySelector(".reason").value = text;
        updateLatch(ui, ui.latch);
      });
      chips.append(b);
    }
    for (const r of RANKS) {
      const b = el("button", "rank", r === "T" ? "10" : r);
      b.dataset.rank = r;
      b.addEventListener("click", () => { ui.rank = r; updateLatch(ui, ui.latch); });
      node.querySelector(".ranks").append(b);
    }
    for (const s of "CDHS") {
      const b = el("button", "suit", SUITS[s]);
      b.dataset.suit = s;
      b.addEventListener("click", () => { ui.suit = s; updateLatch(ui, ui.latch); });
      node.querySelector(".suits").append(b);
    }
    node.querySelector(".reason").addEventListener("input", () => updateLatch(ui, ui.latch));
    node.querySelector(".resolve").addEventListener("click", () => resolve(ui));
    return ui;
  }

  function updateLatch(ui, latch) {
    ui.latch = latch;
    const node = ui.node;
    node.dataset.held = String(latch.held);
    node.querySelector(".latch-title").textContent = TITLES[latch.code] || latch.code;
    node.querySelector(".latch-action").textContent = latch.action;
    let status;
    if (latch.kind === "fault") {
      status = latch.fault_on ? "The shoe still reports it." : "The shoe reports it cleared.";
      if (latch.supervisor) status += " Only a supervisor may resolve it now.";
    } else if (latch.held) {
      status = "Play is held: say how it is lifted." +
        (latch.supervisor ? " A supervisor's hold." : "");
    } else {
      status = `Lifted on the shoe: ${latch.lifted} by ${latch.lifted_by}. Sign it off.`;
    }
    node.querySelector(".latch-status").textContent = status;
    node.querySelector(".latch-rule").textContent = `Rule: ${latch.rule}`;
    const ways = node.querySelector(".ways");
    if (!latch.held) ui.way = null;
    if (ways.dataset.for !== latch.ways.join(",")) {
      ways.dataset.for = latch.ways.join(",");
      ways.replaceChildren(...latch.ways.map((w) => {
        const b = el("button", "way", (CODE_WAY_WORDS[latch.code] || WAY_WORDS)[w] || w);
        b.dataset.way = w;
        b.addEventListener("click", () => { ui.way = w; updateLatch(ui, ui.latch); });
        return b;
      }));
    }
    for (const b of ways.children) b.setAttribute("aria-pressed", String(b.dataset.way === ui.way));
    const keys = node.querySelector(".card-keys");
    keys.hidden = ui.way !== "ENTER";
    for (const b of keys.querySelectorAll(".rank")) b.setAttribute("aria-pressed", String(b.dataset.rank === ui.rank));
    for (const b of keys.querySelectorAll(".suit")) b.setAttribute("aria-pressed", String(b.dataset.suit === ui.suit));
    const chosen = ui.rank && ui.suit ? ui.rank + ui.suit : null;
    keys.querySelector(".card-chosen").replaceChildren(...(chosen ? [card(chosen, true)] : []));
    const reason = node.querySelector(".reason").value.trim();
    const allowed = !latch.supervisor || (me && me.role === "supervisor");
    const ready = reason.length >= 3 && allowed && (!latch.held || (ui.way &&
      (ui.way !== "ENTER" || chosen)));
    node.querySelector(".resolve").disabled = !ready;
  }

  async function resolve(ui) {
    const latch = ui.latch;
    const args = { latch: latch.id, reason: ui.node.querySelector(".reason").value.trim() };
    if (latch.held) {
      args.way = ui.way;
      if (ui.way === "ENTER") args.card = ui.rank + ui.suit;
    }
    const button = ui.node.querySelector(".resolve");
    button.disabled = true;
    const r = await call("POST", "/api/actions", { id: newId(), kind: "resolve", args });
    if (r.status === 200) {
      toast(`${TITLES[latch.code] || latch.code}: resolved`);
    } else {
      if (r.status === 401) return showSignIn(r.data.error);
      toast(r.data.error || `refused (${r.status})`, "error");
      updateLatch(ui, ui.latch);
    }
  }

  // ---- what only the croupier sees ------------------------------------------------------------

  function renderReports(reports) {
    const box = $("reports");
    const offered = reports.filter((r) => r.applies); // the house's own rules only
    $("report-panel").hidden = offered.length === 0;
    for (const report of offered) {
      let ui = reportUi.get(report.kind);
      if (!ui) {
        ui = makeReport(report);
        reportUi.set(report.kind, ui);
        box.append(ui.node);
      }
      updateReport(ui, report);
    }
  }

  function makeReport(report) {
    const node = $("report-template").content.firstElementChild.cloneNode(true);
    node.dataset.report = report.kind;
    const ui = { node, report, position: null, face: null };
    node.querySelector(".report-title").textContent = REPORT_TITLES[report.kind] || report.kind;
    for (const face of ["up", "down"]) {
      const b = el("button", "face", `Landed face ${face}`);
      b.dataset.face = face;
      b.addEventListener("click", () => { ui.face = face; updateReport(ui, ui.report); });
      node.querySelector(".faces").append(b);
    }
    node.querySelector(".faces").hidden = report.kind !== "card_fell";
    node.querySelector(".partner-row").hidden = report.kind !== "partner_objection";
    for (const text of (REPORT_REASONS[report.kind] || [])) {
      const b = el("button", "chip", text);
      b.addEventListener("click", () => {
        node.querySelector(".reason").value = text;
        updateReport(ui, ui.report);
      });
      node.querySelector(".chips").append(b);
    }
    node.querySelector(".reason").addEventListener("input", () => updateReport(ui, ui.report));
    node.querySelector(".partner").addEventListener("input", () => updateReport(ui, ui.report));
    node.querySelector(".report-go").addEventListener("click", () => sendReport(ui));
    return ui;
  }

  const NAMES_A_CARD = ["banker_card_lost", "card_fell"];

  function updateReport(ui, report) {
    ui.report = report;
    const node = ui.node;
    const open = report.why_not === null;
    node.dataset.open = String(open);
    node.querySelector(".report-rule").textContent = `Rule: ${report.rule}`;
    node.querySelector(".report-why").textContent = open ? "" : report.why_not;
    const positions = node.querySelector(".positions");
    const names = NAMES_A_CARD.includes(report.kind);
    positions.hidden = !names;
    if (!report.positions.includes(ui.position)) ui.position = null;
    if (positions.dataset.for !== report.positions.join(",")) {
      positions.dataset.for = report.positions.join(",");
      positions.replaceChildren(...report.positions.map((p) => {
        const b = el("button", "position", p);
        b.dataset.position = p;
        b.addEventListener("click", () => { ui.position = p; updateReport(ui, ui.report); });
        return b;
      }));
    }
    for (const b of positions.children) b.setAttribute("aria-pressed", String(b.dataset.position === ui.position));
    for (const b of node.querySelectorAll(".face")) b.setAttribute("aria-pressed", String(b.dataset.face === ui.face));
    const reason = node.querySelector(".reason").value.trim();
    const partner = node.querySelector(".partner").value.trim();
    const ready = open && reason.length >= 3 && (!names || ui.position) &&
      (report.kind !== "card_fell" || ui.face) &&
      (report.kind !== "partner_objection" || /^[1-9][0-9]?$/.test(partner));
    node.querySelector(".report-go").disabled = !ready;
  }

  async function sendReport(ui) {
    const node = ui.node;
    const kind = ui.report.kind;
    const args = { reason: node.querySelector(".reason").value.trim() };
    if (NAMES_A_CARD.includes(kind)) args.position = ui.position;
    if (kind === "card_fell") args.face = ui.face;
    if (kind === "partner_objection") args.partner = `seat ${node.querySelector(".partner").value.trim()}`;
    node.querySelector(".report-go").disabled = true;
    const r = await call("POST", "/api/actions", { id: newId(), kind, args });
    if (r.status === 200) {
      node.querySelector(".reason").value = "";
      node.querySelector(".partner").value = "";
      ui.position = null;
      ui.face = null;
      toast(`${REPORT_TITLES[kind]}: reported (${ui.report.rule})`);
      updateReport(ui, ui.report);
    } else {
      if (r.status === 401) return showSignIn(r.data.error);
      toast(r.data.error || `refused (${r.status})`, "error");
      updateReport(ui, ui.report);
    }
  }

  async function voidCoup() {
    const reason = $("void-reason").value.trim();
    if (reason.length < 3) { toast("Give the reason for the void", "error"); return; }
    const r = await call("POST", "/api/actions", { id: newId(), kind: "void", args: { reason } });
    if (r.status === 200) {
      $("void-reason").value = "";
      toast("The coup is void");
    } else {
      if (r.status === 401) return showSignIn(r.data.error);
      toast(r.data.error || `refused (${r.status})`, "error");
    }
  }

  // ---- the recall ---------------------------------------------------------------------------

  async function loadRecall(shoe, coup) {
    const query = shoe && coup ? `?shoe=${encodeURIComponent(shoe)}&coup=${encodeURIComponent(coup)}` : "";
    const r = await call("GET", "/api/recall" + query);
    const list = $("recall-list");
    if (r.status !== 200) {
      if (r.status === 401) return showSignIn(r.data.error);
      list.replaceChildren();
      toast(r.data.error || `recall refused (${r.status})`, "error");
      return;
    }
    $("recall-note").textContent = r.data.consistent ? ""
      : "The ledger's records do not all replay to what it recorded: check the ledger.";
    list.replaceChildren(...r.data.coups.map(told));
  }

  function eventWords(e) {
    switch (e.what) {
      case "button":
        if (e.name === "KEY") return e.taken ? `Supervisor's badge: ${e.person}` : `Badge refused: ${e.why}`;
        return `Button ${e.name}${e.arg ? " " + e.arg : ""}${e.waited ? " (waited)" : ""}`;
      case "fault": return `Shoe fault ${e.code} ${e.on ? "on" : "cleared"}`;
      case "irregularity": return `${e.words} (${e.rule})${e.hold ? " \u2014 play held" : ""}`;
      case "resolved": return `Lifted: ${e.how} by ${e.by}`;
      case "console": {
        const reported = {
          punter_bac: "Reported the punter's bac",
          banker_card_lost: `Reported the banker's card at ${e.position} lost in the discard`,
          card_fell: `Reported the card at ${e.position} fallen, face ${e.face}`,
          partner_objection: `Reported the objection of the banker's partner (${e.partner})`,
        }[e.kind];
        const what = reported || (e.kind === "void" ? "Voided"
          : `Resolved${e.way ? " with " + e.way : ""}`);
        return `${what} on the console by ${e.by} (${e.role}): \u201c${e.reason}\u201d`;
      }
      case "result": return OUTCOMES[e.outcome] || e.outcome;
      default: return e.what;
    }
  }

  function told(coup) {
    const box = el("article", "told");
    box.dataset.shoe = coup.shoe;
    box.dataset.coup = coup.coup;
    box.dataset.outcome = coup.outcome || "";
    box.append(el("h3", "", `Shoe ${coup.shoe} \u00b7 coup ${coup.coup} \u2014 ` +
      (coup.in_play ? "in play" : (OUTCOMES[coup.outcome] || ""))));
    const row = el("div", "row");
    for (const side of ["punter", "banker"]) {
      const hand = el("div", "hand");
      hand.append(el("h4", "", side === "punter" ? "Punter" : "Banker"));
      const cs = el("div", "cards");
      cs.append(...coup[side].cards.map((c) => card(c, true)));
      hand.append(cs);
      if (coup[side].total !== null) {
        hand.append(el("p", "total", String(coup[side].total) + (coup[side].bac ? " (bac)" : "")));
      }
      row.append(hand);
    }
    box.append(row);
    box.append(el("h4", "", "Cards in the order they left the shoe"));
    const cards = el("ol", "cards-out");
    for (const c of coup.cards) {
      const name = c.code === null ? "hidden card" : (c.code === "??" ? "unreadable card" : c.code);
      const entered = c.entered ? `, keyed in as ${c.entered}` : "";
      const li = el("li", "", `${name} (face ${c.face}${entered}) \u2192 ${c.fate}`);
      if (c.code) li.dataset.code = c.code;
      cards.append(li);
    }
    box.append(cards);
    box.append(el("h4", "", "What happened"));
    const events = el("ol", "events");
    for (const e of coup.events) {
      const li = el("li", "", `${e.at.slice(11, 19)} UTC  ${eventWords(e)}`);
      li.dataset.what = e.what;
      events.append(li);
    }
    box.append(events);
    box.append(el("p", "quiet money", coup.stakes === null
      ? "Stakes and settlement: not kept at this table yet." : ""));
    return box;
  }

  // ---- wiring --------------------------------------------------------------------------------

  document.addEventListener("DOMContentLoaded", () => {
    for (const b of document.querySelectorAll("[data-digit]")) {
      b.addEventListener("click", () => {
        if (pin.length < 12) pin += b.dataset.digit;
        $("pin-dots").textContent = "\u25cf".repeat(pin.length);
      });
    }
    $("pin-back").addEventListener("click", () => {
      pin = pin.slice(0, -1);
      $("pin-dots").textContent = "\u25cf".repeat(pin.length);
    });
    $("pin-ok").addEventListener("click", () => {
      if (pinFor && pin) signIn({ method: "pin", person: pinFor, pin });
    });
    $("pin-cancel").addEventListener("click", closePad);
    $("badge-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const badge = $("badge").value;
      if (badge) signIn({ method: "badge", badge });
    });
    $("sign-out").addEventListener("click", signOut);
    for (const b of document.querySelectorAll(".tab")) {
      b.addEventListener("click", () => {
        tab = b.dataset.tab;
        show(tab === "recall" ? "recall" : "desk");
        if (tab === "recall") loadRecall();
      });
    }
    $("recall-last").addEventListener("click", () => loadRecall());
    $("recall-go").addEventListener("click", () => loadRecall($("recall-shoe").value, $("recall-coup").value));
    for (const chips of document.querySelectorAll(".chips[data-for]")) {
      for (const b of chips.children) {
        b.addEventListener("click", () => { $(chips.dataset.for).value = b.textContent; });
      }
    }
    $("void-go").addEventListener("click", voidCoup);
    call("GET", "/api/me").then((r) => (r.status === 200 ? signedIn(r.data.me) : showSignIn()));
  });
})();
