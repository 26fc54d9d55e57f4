// The croupier's console page: it renders what the console's API gives and sends the
// actions the croupier takes, each with a fresh request id, asked again with that same id
// until it has its outcome (docs/console.md, "The handoff and its answers"). Everything
// shown goes through textContent: a reason typed by a person is text, never markup.
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
  let typedId = false; // not one of the table's screens: no name tiles, the id is typed
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

  const ASK_AGAIN_MS = 1000; // between the asks of one request still being done
  const UNANSWERED_ASKS = 10; // a console that does not answer: asked again this often

  // One request and its outcome: a 202 (the table is still doing it) or a dropped
  // connection is asked again with the same id, which never does it twice.
  async function send(path, body) {
    let unanswered = 0;
    for (;;) {
      const r = await call("POST", path, body);
      if (r.status === 0 && ++unanswered > UNANSWERED_ASKS) return r;
      if (r.status !== 202 && r.status !== 0) return r;
      toast(r.status === 202 ? "Still being done\u2026" : "The console does not answer: asking again\u2026");
      await new Promise((done) => setTimeout(done, ASK_AGAIN_MS));
    }
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
    // Only the table's own screens get the name tiles; elsewhere a person types their id.
    typedId = r.status === 403;
    $("staff-form").hidden = !typedId;
    $("sign-in-hint").textContent = typedId
      ? "Type your staff id and enter your PIN, or present your badge."
      : "Touch your name and enter your PIN, or present your badge.";
    for (const p of (r.status === 200 && r.data.people) || []) {
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
    $("staff-form").hidden = true;
    $("pin-pad").hidden = false;
  }

  function closePad() {
    pinFor = null;
    pin = "";
    $("pin-pad").hidden = true;
    $("people").hidden = false;
    $("staff-form").hidden = !typedId;
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
    const r = await send("/api/sign-out", { id: newId() });
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
    renderMoney(con.money || null);
  }

  // ---- the table's money: the bank, the stakes in Prime order, the boxes, the settlement ------

  let money = null;
  const pick = { who: null, box: null, bet: null, amount: "" };
  const KIND_WORDS = { banco_solo: "Banco solo", banco: "Banco", banco_with_table: "Banco with the table",
    table: "Stake", share: "Share", outsider: "Outsider", difference: "Difference", bank: "Bank",
    partner: "Partner", house: "House", punto: "Punto", egalite: "\u00c9galit\u00e9",
    simple_nine: "Simple Nine", colour_nine: "Colour Nine", swiss_nine: "Swiss Nine" };
  const RESULT_WORDS = { won: "won", lost: "lost", returned: "returned", stays: "stays" };
  const LIMITS = { "chemin-de-fer": ["min_stake", "max_stake", "min_bank", "max_bank"],
    "punto-banco": ["min_stake", "max_stake", "nine_min_stake", "nine_max_stake"] };

  // An amount as the house writes it ("Fr. 1,170"): only the digits are grouped, nothing
  // is computed (the amounts come exact from the daemon).
  function fmt(text) {
    if (text === null || text === undefined || text === "") return "";
    if (!money) return text;
    const loc = money.locale;
    const neg = text.startsWith("-");
    let [whole, frac = ""] = (neg ? text.slice(1) : text).split(".");
    if (/^0*$/.test(frac)) frac = "";
    const groups = [];
    while (whole.length > 3 && loc.group) { groups.unshift(whole.slice(-3)); whole = whole.slice(0, -3); }
    let num = [whole, ...groups].join(loc.group);
    if (frac) num += loc.point + frac;
    const gap = loc.space ? " " : "";
    const out = loc.sign_first ? `${loc.sign}${gap}${num}` : `${num}${gap}${loc.sign}`;
    return neg ? "-" + out : out;
  }

  function button(text, cls, onClick, data) {
    const b = el("button", cls, text);
    for (const [k, v] of Object.entries(data || {})) b.dataset[k] = v;
    b.addEventListener("click", onClick);
    return b;
  }

  async function act(kind, args, done) {
    const r = await send("/api/actions", { id: newId(), kind, args });
    if (r.status === 200) {
      pick.amount = "";
      if (done) done(r.data);
      toast(`${kind.replace(/_/g, " ")}: recorded`);
    } else {
      if (r.status === 401) return showSignIn(r.data.error);
      toast(r.data.error || `refused (${r.status})`, "error");
    }
    if (money) renderMoney(money);
  }

  function stakesOf(m) {
    const round = m.round;
    return round ? (round.stakes || round.bets || []) : (m.carried || []);
  }

  function renderMoney(m) {
    money = m;
    const panel = $("money-panel");
    panel.dataset.money = m ? "on" : "off";
    $("money-desk").hidden = !m;
    if (!m) {
      $("bank-line").textContent = "Stakes and bank";
      $("money-status").textContent = "The table's money is not kept at this table.";
      $("settlement").hidden = true;
      $("supervisor-money").hidden = true;
      return;
    }
    const cdf = m.game === "chemin-de-fer";
    const round = m.round;
    const closed = !!(round && round.shoe !== null);
    panel.dataset.closed = String(closed);
    $("bank-line").textContent = bankLine(m);
    $("money-status").textContent = statusLine(m, closed);
    $("money-faults").replaceChildren(...m.faults.map((f) => el("p", "refusal", `The money could not follow: ${f}`)));
    $("cdf-money").hidden = !cdf;
    $("pb-money").hidden = cdf;
    if (cdf) renderSeats(m); else renderBoxes(m);
    $("amount").textContent = pick.amount ? fmt(pick.amount) : "Amount";
    renderPlays(m, closed);
    $("stakes-list").replaceChildren(...stakesOf(m).map((s) => {
      const li = el("li", "stake");
      li.dataset.stake = s.id;
      const who = s.who || `box ${s.box}`;
      const kind = KIND_WORDS[s.kind || s.bet] || s.kind || s.bet;
      li.append(el("span", "", `${s.id}  ${who}  ${kind}  ${fmt(s.amount)}` +
        (s.over_line ? " (over the line)" : "") + (s.carried ? " (stays from the \u00e9galit\u00e9)" : "")));
      if (!closed && s.kind !== "difference" && !s.carried) {
        li.append(button("Withdraw", "quiet withdraw", () => act("withdraw", { stake: s.id })));
      }
      return li;
    }));
    renderSettlement(m.settlement);
    renderSupervisor(m, closed);
  }

  function bankLine(m) {
    if (m.game === "punto-banco") {
      const l = m.limits;
      return `Punto Banco \u00b7 limits ${fmt(l.min_stake)} to ${l.max_stake ? fmt(l.max_stake) : "no maximum"}`;
    }
    const b = m.bank;
    if (b.phase === "held") return m.bank_text + `  \u00b7 ${b.holder}`;
    if (b.phase === "offer") return b.standing ? `The bank is offered to the standing players at ${fmt(b.offer)}`
      : `The bank is offered at ${fmt(b.offer)} to place ${m.turn}`;
    if (b.phase === "auction") {
      const top = b.bids.length ? b.bids[b.bids.length - 1] : null;
      return top ? `Auction of the bank: ${top[0]} bids ${fmt(top[1])}` : "Auction of the bank: no bid yet";
    }
    return m.turn ? `No bank: place ${m.turn}'s turn to take it` : "No bank: nobody is seated";
  }

  function statusLine(m, closed) {
    const round = m.round;
    if (closed) return `Rien ne va plus: coup ${round.coup} is dealt` +
      (round.holder ? ` \u00b7 ${round.holder} holds the cards` : "");
    const parts = ["Betting open"];
    if (m.bank && m.bank.suivi) parts.push(`suivi: ${m.bank.suivi}`);
    if (round && round.holder) parts.push(`${round.holder} holds the cards`);
    if (m.may && m.may.length) parts.push(`the banker may: ${m.may.join(", ")}`);
    return parts.join(" \u00b7 ");
  }

  function renderSeats(m) {
    const places = m.seating.places;
    const occupied = new Set(m.seating.occupied);
    const prime = m.prime || [];
    const order = [...prime.map((p) => Number(p.slice(5)))];
    for (let i = 1; i <= places; i++) if (!order.includes(i)) order.push(i);
    $("prime-hint").textContent = prime.length ? "in Prime order (the suivi first)" : "";
    const bank = m.bank;
    const seats = order.map((n) => {
      const key = `seat ${n}`;
      let role = occupied.has(n) ? "" : "empty";
      if (bank.holder === key) role = "banker";
      else if (bank.partner === key) role = "partner";
      else if (bank.suivi === key) role = "suivi";
      else if (prime[0] === key) role = "Prime";
      else if (m.turn === n && bank.phase !== "held") role = "in turn";
      const b = button(role ? `${n} \u00b7 ${role}` : String(n), "seat", () => {
        pick.who = key;
        renderMoney(money);
      }, { seat: String(n), occupied: String(occupied.has(n)) });
      b.setAttribute("aria-pressed", String(pick.who === key));
      return b;
    });
    $("seats").replaceChildren(...seats);
    $("outsider-row").hidden = m.offers.outsiders === "none";
    $("chosen").textContent = pick.who ? `Chosen: ${pick.who}` : "Touch a player, then the amount and the play.";
  }

  function renderBoxes(m) {
    const grid = $("boxes");
    if (grid.dataset.built !== String(m.limits.places)) {
      grid.dataset.built = String(m.limits.places);
      const cells = [];
      for (let n = 1; n <= m.limits.places; n++) {
        cells.push(el("span", "box-name", `Box ${n}`));
        for (const bet of m.offers.bets) {
          cells.push(button(KIND_WORDS[bet], "bet", () => {
            pick.box = n; pick.bet = bet; renderMoney(money);
          }, { box: String(n), bet }));
        }
      }
      grid.style.gridTemplateColumns = `auto repeat(${m.offers.bets.length}, 1fr)`;
      grid.replaceChildren(...cells);
    }
    for (const b of grid.querySelectorAll(".bet")) {
      b.setAttribute("aria-pressed", String(Number(b.dataset.box) === pick.box && b.dataset.bet === pick.bet));
    }
    $("chosen-bet").textContent = pick.box ? `Chosen: box ${pick.box}, ${KIND_WORDS[pick.bet]}` : "Touch a box's bet, then the amount.";
  }

  function renderPlays(m, closed) {
    const plays = [];
    const choices = [];
    const who = pick.who;
    const amount = pick.amount;
    const need = (args) => Object.values(args).every((v) => v);
    const play = (text, kind, args, cls) => {
      const b = button(text, "big play " + (cls || ""), () => act(kind, args), { kind });
      b.disabled = !need(args);
      return b;
    };
    if (m.game === "punto-banco") {
      if (!closed) plays.push(play("Place the bet", "bet", { box: pick.box ? String(pick.box) : "", bet: pick.bet || "", amount }, "go"));
    } else {
      const bank = m.bank;
      const occupied = who && who.startsWith("seat ") && m.seating.occupied.includes(Number(who.slice(5)));
      const seat = who && who.startsWith("seat ") ? who.slice(5) : "";
      if (seat && !occupied) plays.push(play("Sit down", "sit", { seat }));
      if (seat && occupied) plays.push(play("Leave", "leave", { seat }, "quiet"));
      if (bank.phase === "vacant") {
        plays.push(play("Take the bank", "take_bank", { who, amount }, "go"));
        if (m.offers.open_bank) plays.push(play("Open bank", "take_bank", { who, amount: "open" }));
        plays.push(play("Decline the bank", "decline_bank", { who }, "quiet"));
      } else if (bank.phase === "offer") {
        plays.push(play("Accept the offer", "accept_offer", { who }, "go"));
        if (!bank.standing) plays.push(play("Decline the offer", "decline_bank", { who }, "quiet"));
        else plays.push(play("To auction", "to_auction", {}));
      } else if (bank.phase === "auction") {
        plays.push(play("Bid", "bid", { who, amount }, "go"));
        plays.push(play("Award the bank", "award", {}));
      } else if (!closed) {
        const kinds = m.offers.kinds;
        if (kinds.includes("table")) plays.push(play("Stake", "stake", { who, amount }, "go"));
        if (kinds.includes("banco_solo")) plays.push(play("Banco solo", "banco", { who, kind: "banco_solo" }));
        if (kinds.includes("banco")) plays.push(play("Banco", "banco", { who, kind: "banco" }));
        if (kinds.includes("banco_with_table")) {
          plays.push(play("Banco with the table", "banco", { who, kind: "banco_with_table", amount }));
        }
        const banco = stakesOf(m).find((s) => s.kind === "banco");
        if (banco) plays.push(play(`Share of ${banco.who}'s banco`, "share", { who, of: banco.who, amount }));
        for (const may of (m.may || [])) {
          const words = { suite: "Suite: give up the bank", schokolade: "Schokolade", garage: "Garage" }[may];
          choices.push(may === "garage" ? play(words, "garage", { amount }) : play(words, may, {}));
        }
      }
    }
    $("plays").replaceChildren(...plays);
    $("bank-choices").replaceChildren(...choices);
  }

  function renderSettlement(s) {
    const box = $("settlement");
    box.hidden = !s;
    if (!s) return;
    box.dataset.shoe = String(s.shoe);
    box.dataset.coup = String(s.coup);
    $("settlement-title").textContent = `Settlement of shoe ${s.shoe} coup ${s.coup}: ` +
      (OUTCOMES[s.outcome] || s.outcome);
    $("settlement-lines").tBodies[0].replaceChildren(...s.lines.map((l) => {
      const tr = el("tr");
      tr.dataset.who = l.who;
      tr.dataset.result = l.result;
      for (const text of [l.who, KIND_WORDS[l.kind] || l.kind, fmt(l.staked), RESULT_WORDS[l.result] || l.result,
        fmt(l.paid), fmt(l.net)]) tr.append(el("td", "", text));
      return tr;
    }));
    const sums = [`Commission ${fmt(s.commission)}`];
    if (s.bank) sums.push(s.bank.ends ? `the bank passes (to place ${s.bank.passes_to})`
      : `the bank is ${fmt(s.bank.after)}` + (Number(s.bank.uncovered) > 0 ? `, ${fmt(s.bank.uncovered)} not staked against` : ""));
    if (s.suivi) sums.push(`suivi: ${s.suivi}`);
    $("settlement-sums").textContent = sums.join(" \u00b7 ");
  }

  function renderSupervisor(m, closed) {
    const box = $("supervisor-money");
    box.hidden = !(me && me.role === "supervisor");
    if (box.hidden) return;
    const select = $("correct-stake");
    const options = m.correctable ? stakesOf(m).filter((s) => s.kind !== "difference") : [];
    const wanted = options.map((s) => s.id).join(",");
    if (select.dataset.for !== wanted) {
      select.dataset.for = wanted;
      select.replaceChildren(...options.map((s) => {
        const o = el("option", "", `${s.id} ${s.who || "box " + s.box} ${fmt(s.amount)}`);
        o.value = s.id;
        return o;
      }));
    }
    const reason = $("money-reason").value.trim();
    $("correct-go").disabled = !(m.correctable && options.length && pick.amount !== "" && reason.length >= 3);
    $("reopen-void").disabled = !(m.reopenable && reason.length >= 3);
    $("reopen-rules").disabled = !(m.reopenable && reason.length >= 3);
    const row = $("limits-row");
    const keys = LIMITS[m.game];
    if (row.dataset.for !== keys.join(",")) {
      row.dataset.for = keys.join(",");
      row.replaceChildren(...keys.map((k) => {
        const label = el("label", "limit", k.replace(/_/g, " "));
        const input = el("input");
        input.id = `limit-${k}`;
        input.inputMode = "decimal";
        input.dataset.limit = k;
        input.addEventListener("input", () => renderSupervisor(money, closed));
        label.append(input);
        return label;
      }));
    }
    for (const k of keys) {
      const input = $(`limit-${k}`);
      input.placeholder = m.limits[k] === null ? "none" : m.limits[k];
    }
    const changed = keys.some((k) => $(`limit-${k}`).value.trim());
    $("limits-go").disabled = !(changed && reason.length >= 3);
  }

  function supervisorAct(kind, args) {
    const reason = $("money-reason").value.trim();
    act(kind, { ...args, reason }, () => { $("money-reason").value = ""; });
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
    const r = await send("/api/actions", { id: newId(), kind: "resolve", args });
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
    const r = await send("/api/actions", { id: newId(), kind, args });
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
    const r = await send("/api/actions", { id: newId(), kind: "void", args: { reason } });
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
      case "correction": return `Corrected on the console by ${e.by}: ${e.change}` +
        (e.how ? ` (${e.how})` : "") + ` \u201c${e.reason}\u201d`;
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
    box.append(toldMoney(coup));
    return box;
  }

  function toldMoney(coup) {
    const box = el("div", "money");
    if (coup.stakes === null && coup.settlement === null) {
      box.append(el("p", "quiet", "No stakes recorded for this coup."));
      return box;
    }
    if (coup.stakes) {
      const b = coup.stakes.bank;
      box.append(el("h4", "", b ? `Stakes against ${b.banker}'s bank of ${fmt(b.amount)}` : "Stakes"));
      const list = el("ol", "recall-stakes");
      for (const s of coup.stakes.stakes) {
        const li = el("li", "", `${s.id} ${s.who || "box " + s.box} ${KIND_WORDS[s.kind || s.bet] || s.kind || s.bet} ${fmt(s.amount)}`);
        li.dataset.stake = s.id;
        list.append(li);
      }
      box.append(list);
    }
    if (coup.settlement) {
      const s = coup.settlement;
      box.append(el("h4", "", `Settlement: commission ${fmt(s.commission)}` +
        (s.bank ? (s.bank.ends ? ", the bank passes" : `, the bank ${fmt(s.bank.after)}`) : "")));
      const list = el("ol", "recall-settlement");
      for (const l of s.lines) {
        const li = el("li", "", `${l.who} ${KIND_WORDS[l.kind] || l.kind}: ${RESULT_WORDS[l.result] || l.result}, paid ${fmt(l.paid)}, net ${fmt(l.net)}`);
        li.dataset.who = l.who;
        list.append(li);
      }
      box.append(list);
    }
    for (const c of coup.corrections || []) {
      box.append(el("p", "correction", c.change === "settlement"
        ? `Settlement reopened (${c.how}) by ${c.by}: \u201c${c.reason}\u201d`
        : `Stake ${c.stake || "missed"} of ${c.who} corrected to ${fmt(c.amount)} by ${c.by}: \u201c${c.reason}\u201d`));
    }
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
    $("staff-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const id = $("staff-id").value.trim();
      if (id) openPad({ id, name: id });
    });
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
    const keys = $("amount-keys");
    for (const k of ["1", "2", "3", "4", "5", "6", "7", "8", "9", ".", "0", "00"]) {
      keys.append(button(k, "key", () => {
        if (pick.amount.length < 15) pick.amount += k;
        if (money) renderMoney(money);
      }, { amountKey: k }));
    }
    keys.append(button("\u232b", "key quiet", () => { pick.amount = pick.amount.slice(0, -1); if (money) renderMoney(money); },
      { amountKey: "back" }));
    keys.append(button("C", "key quiet", () => { pick.amount = ""; if (money) renderMoney(money); }, { amountKey: "clear" }));
    $("outsider-go").addEventListener("click", () => {
      const label = $("outsider").value.trim();
      if (label) { pick.who = `outsider ${label}`; if (money) renderMoney(money); }
    });
    $("correct-go").addEventListener("click", () => supervisorAct("correct", { stake: $("correct-stake").value, amount: pick.amount }));
    $("reopen-void").addEventListener("click", () => supervisorAct("reopen", { how: "void" }));
    $("reopen-rules").addEventListener("click", () => supervisorAct("reopen", { how: "rules" }));
    $("limits-go").addEventListener("click", () => {
      const args = {};
      for (const input of document.querySelectorAll("[data-limit]")) {
        if (input.value.trim()) args[input.dataset.limit] = input.value.trim();
      }
      supervisorAct("limits", args);
      for (const input of document.querySelectorAll("[data-limit]")) input.value = "";
    });
    $("money-reason").addEventListener("input", () => { if (money) renderMoney(money); });
    call("GET", "/api/me").then((r) => (r.status === 200 ? signedIn(r.data.me) : showSignIn()));
  });
})();
