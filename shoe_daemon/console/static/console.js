// The croupier's console page: the table drawn as the house numbers its places, the money
// beside it, on one touch screen (docs/console.md, "The page"). It renders what the console's
// API gives and sends the actions the croupier takes, each with a fresh request id, asked
// again with that same id until it has its outcome ("The handoff and its answers"). Every
// word comes from the one words file (display/static/words.json) in the table's language and
// terms; everything shown goes through textContent: a reason typed by a person is text.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const SUITS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
  const RANKS = "A23456789TJQK";
  const IN_PLAY = ["dealing", "punter_to_declare", "punter_drawing", "banker_to_play", "on_hold"];
  const SUPERVISOR_KINDS = ["correct", "reopen", "limits", "void"];
  // The reasons a croupier taps rather than types, by the hold's code or the report's kind.
  const REASONS = {
    WRONG_ORDER: ["card_moved", "checked"], UNREADABLE_CARD: ["keyed"], FOREIGN_CARD: ["foreign_out"],
    DECLARATION_MISSING: ["declared"], COUP_NOT_FINISHED: ["early_press"],
    FAUX_TIRAGE: ["redressed"], JAM: ["jam_cleared"], READER: ["reader_checked"],
    COVER_OPEN: ["cover_closed"], POWER_LOW: ["power_back"],
    BANKER_CARD_LOST: ["not_told", "recognised"],
    punter_bac: ["threw"], banker_card_lost: ["face_down", "mixed"],
    card_fell: ["picked_croupier", "picked_inspector"],
    partner_objection: ["objected_draw", "objected_stand"],
    void: ["misdeal", "card_fell", "dispute"], money: ["miscounted", "late_chip", "dispute"],
  };
  const LIMITS = { "chemin-de-fer": ["min_stake", "max_stake", "min_bank", "max_bank"],
    "punto-banco": ["min_stake", "max_stake", "nine_min_stake", "nine_max_stake"] };
  // A casino's run of chip values, times the table's chip: the chips offered are those
  // within the table's limits.
  const CHIP_RUN = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000,
    100000];

  let words = null; // the words file
  let lang = "en";
  let termsLang = "fr";
  let me = null;
  let stream = null;
  let shared = null;
  let tab = "table";
  let pinFor = null;
  let typedId = false; // not one of the table's screens: no name tiles, the id is typed
  let pin = "";
  let peopleList = [];
  const latchUi = new Map(); // latch id -> its element and what was chosen on it
  let reportOpen = null; // the report on the sheet: its element and what was chosen on it

  // ---- words ---------------------------------------------------------------------------------

  function w(key, vars) {
    if (!words) return key;
    const table = words.words[lang] || words.words.en;
    let text = table[key];
    if (text === undefined) text = words.words.en[key];
    if (text === undefined) return key;
    const terms = words.terms[termsLang] || words.terms.fr;
    return text.replace(/\{(\w+)\}/g, (whole, name) => (vars && name in vars ? String(vars[name])
      : (name in terms ? terms[name] : whole)));
  }

  function setLanguage(language, terms) {
    if (language === lang && terms === termsLang) return;
    lang = language || "en";
    termsLang = terms || "fr";
    document.documentElement.lang = lang;
    applyWords();
  }

  function applyWords() {
    for (const e of document.querySelectorAll("[data-w]")) e.textContent = w(e.dataset.w);
    $("outsider").placeholder = w("console.outsider.hint");
    $("money-reason").placeholder = w("console.reason");
    document.title = w("console.title");
  }

  // A player by the money's key ("seat 3", "outsider A", "box 2"; an old ledger's 3).
  function who(key) {
    if (key === null || key === undefined) return "";
    const text = String(key);
    if (/^\d+$/.test(text)) return w("page.place.seat", { n: text });
    const [kind, ...rest] = text.split(" ");
    const n = rest.join(" ");
    if (kind === "seat") return w("page.place.seat", { n });
    if (kind === "box") return w("page.place.box", { n });
    if (kind === "outsider") return w("console.who.outsider", { n });
    if (text === "house") return w("console.who.house");
    return text;
  }

  const play = (kind) => (words && (words.words.en[`page.play.${kind}`] !== undefined)
    ? w(`page.play.${kind}`) : w(`console.kind.${kind}`));
  const outcome = (o) => ({ banker: w("page.wins", { side: w("console.side.banker") }),
    punter: w("page.wins", { side: w("console.side.punter") }), egalite: w("console.side.egalite"),
    cancelled: w("page.cancelled"), void: w("page.void") }[o] || "");
  const result = (r) => w(`page.result.${r}`);

  // ---- requests --------------------------------------------------------------------------------

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
      return { status: 0, data: { error: w("console.no_answer") } };
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
      toast(r.status === 202 ? w("console.still") : w("console.asking_again"));
      await new Promise((done) => setTimeout(done, ASK_AGAIN_MS));
    }
  }

  // What just happened, on its own line under the bar: it covers nothing.
  function toast(text, kind) {
    const t = $("toast");
    t.textContent = text;
    t.dataset.kind = kind || "ok";
  }

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function button(text, cls, onClick, data) {
    const b = el("button", cls, text);
    for (const [k, v] of Object.entries(data || {})) b.dataset[k] = v;
    b.addEventListener("click", onClick);
    return b;
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
    for (const id of ["latch-panel", "keypad", "report-sheet", "supervisor-sheet", "approval"]) $(id).hidden = true;
    show("sign-in");
    if (why) toast(why, "error");
    const r = await call("GET", "/api/people");
    const table = r.data.table;
    if (table) {
      setLanguage(table.language, table.terms);
      $("sign-in-title").textContent = w("console.sign_in.at", { table: table.name, house: table.house });
      $("table-name").textContent = `${table.name} \u00b7 ${table.house}`;
    }
    const tiles = $("people");
    tiles.replaceChildren();
    // Only the table's own screens get the name tiles; elsewhere a person types their id.
    typedId = r.status === 403;
    $("staff-form").hidden = !typedId;
    $("sign-in-hint").textContent = w(typedId ? "console.sign_in.typed" : "console.sign_in.hint");
    peopleList = (r.status === 200 && r.data.people) || [];
    for (const p of peopleList) {
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
    $("pin-for").textContent = w("console.pin_for", { name: person.name });
    $("pin-dots").textContent = "";
    $("people").hidden = true;
    $("staff-form").hidden = true;
    $("badge-form").hidden = true;
    $("pin-pad").hidden = false;
  }

  function closePad() {
    pinFor = null;
    pin = "";
    $("pin-pad").hidden = true;
    $("people").hidden = false;
    $("badge-form").hidden = false;
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
      toast(r.data.error || w("console.refused", { status: r.status }), "error");
    }
  }

  function signedIn(person) {
    me = person;
    $("me").textContent = person.name;
    document.body.dataset.role = person.role;
    document.body.dataset.person = person.person;
    toast(w("console.signed_in", { name: person.name }));
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
      showSignIn();
      toast(w("console.signed_out"));
    } else {
      toast(r.data.error || w("console.refused", { status: r.status }), "error");
    }
  }

  // ---- the table ----------------------------------------------------------------------------

  function render() {
    if (!shared || !me) return;
    const view = shared.view || {};
    const con = shared.console || { latches: [], key_refusals: [] };
    setLanguage(view.language, view.terms);
    document.body.dataset.state = view.state || "starting";
    document.body.dataset.latches = String(con.latches.length);
    $("table-name").textContent = view.table ? `${view.table} \u00b7 ${view.house}` : w("console.title");
    $("where").textContent = view.shoe ? w("page.shoe", { n: view.shoe.number }) +
      (view.coup ? " \u00b7 " + w("page.coup", { n: view.coup.number }) : "") : "";
    // The shoe's end, as the table display says it: the last coup, then the shoe finished.
    const ending = !!(view.shoe && (view.shoe.last_coup || view.shoe.finished));
    $("shoe-end").hidden = !ending;
    $("shoe-end").textContent = ending && view.shoe.finished ? w("page.shoe_finished")
      : w("page.last_coup");
    $("lamp").dataset.colour = con.lamp || "";
    const punto = view.game === "punto-banco";
    for (const side of ["punter", "banker"]) {
      const box = $(side);
      box.querySelector(".side-name").textContent = w(`console.side.${side}`);
      const hand = view.coup ? view.coup[side] : null;
      box.querySelector(".cards").replaceChildren(...(hand ? hand.cards.map((c) => card(c)) : []));
      box.querySelector(".total").textContent = hand && hand.total !== null
        ? (hand.bac ? w("page.bac", { n: hand.total }) : String(hand.total)) : "";
    }
    document.body.dataset.game = punto ? "punto-banco" : "chemin-de-fer";
    $("outcome").textContent = view.coup && view.coup.outcome ? outcome(view.coup.outcome) : "";
    renderLatches(con.latches, con.key_refusals);
    renderReports(con.reports || []);
    $("void-panel").hidden = !IN_PLAY.includes(view.state);
    renderMoney(con.money || null, view);
  }

  // ---- the table's money: the places, the bank, the chips, the stakes, the settlement ------

  let money = null;
  const pick = { who: null, box: null, amount: "", auto: true }; // auto: chosen by the page
  let lastStaked = null; // the punter who staked last: the next in Prime order is offered

  // An amount as the house writes it ("Fr. 1,170"): only the digits are grouped; `bare`:
  // without its sign (the settlement's columns name the currency once, in their heads).
  function fmt(text, bare) {
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
    if (bare) return neg ? "-" + num : num;
    const out = loc.sign_first ? `${loc.sign}${gap}${num}` : `${num}${gap}${loc.sign}`;
    return neg ? "-" + out : out;
  }

  // Amounts in hundredths as whole numbers: chips are added exactly, never as floats.
  function cents(text) {
    const [whole, frac = ""] = String(text).split(".");
    return BigInt(whole || "0") * 100n + BigInt((frac + "00").slice(0, 2));
  }
  function fromCents(n) {
    const whole = n / 100n;
    const frac = n % 100n;
    return frac === 0n ? String(whole) : `${whole}.${String(frac).padStart(2, "0")}`;
  }

  function chipsOf(m) {
    const l = m.limits;
    const unit = cents(l.chip || "1");
    const low = cents(l.min_stake || l.chip || "1");
    const tops = [l.max_bank, l.max_stake].filter((x) => x !== null && x !== undefined).map(cents);
    const top = tops.length ? tops.reduce((a, b) => (a > b ? a : b)) : null;
    const out = [];
    for (const step of CHIP_RUN) {
      const value = unit * BigInt(step);
      if (value < low || (top !== null && value > top)) continue;
      if (value % unit === 0n) out.push(value);
    }
    const fit = innerWidth <= 900 || innerHeight <= 560 ? 6 : 7;
    return out.slice(0, fit);
  }

  async function act(kind, args, done, approval) {
    const body = { id: newId(), kind, args };
    if (approval) body.approval = approval;
    const r = await send("/api/actions", body);
    if (r.status === 200) {
      toast(said(kind, args));
      pick.amount = "";
      if (done) done(r.data);
    } else {
      if (r.status === 401 && !approval) return showSignIn(r.data.error);
      toast(r.data.error || w("console.refused", { status: r.status }), "error");
    }
    if (money) renderMoney(money);
    document.body.dataset.answered = String(Number(document.body.dataset.answered || 0) + 1);
    return r;
  }

  // What the croupier's tap did, in words.
  function said(kind, args) {
    const vars = { who: who(args.who || (args.seat ? `seat ${args.seat}` : (args.box ? `box ${args.box}` : ""))),
      amount: args.amount ? fmt(args.amount) : "", play: play(args.kind || args.bet || kind) };
    const key = `console.done.${kind}`;
    return w(key, vars) !== key ? w(key, vars) : w("console.done", { what: w(`console.play.${kind}`) });
  }

  function stakesOf(m) {
    const round = m.round;
    return round ? (round.stakes || round.bets || []) : (m.carried || []);
  }

  function renderMoney(m, view) {
    money = m;
    const panel = $("money-panel");
    panel.dataset.money = m ? "on" : "off";
    $("money-desk").hidden = !m;
    $("supervisor-open").hidden = !me || (!m && !IN_PLAY.includes(document.body.dataset.state));
    if (!m) {
      document.body.dataset.call = "";
      $("call").textContent = (view || (shared && shared.view) || {}).state_words || "";
      $("bank-line").textContent = "";
      $("money-status").textContent = w("console.money.off");
      $("chosen").textContent = "";
      $("prime-line").textContent = "";
      $("settlement").hidden = true;
      $("stakes-list").replaceChildren();
      $("stakes-sum").hidden = true;
      renderPlaces(null);
      return;
    }
    const cdf = m.game === "chemin-de-fer";
    const round = m.round;
    const closed = !!(round && round.shoe !== null);
    panel.dataset.closed = String(closed);
    const state = (shared && shared.view && shared.view.state) || "";
    const inPlay = IN_PLAY.includes(state);
    document.body.dataset.call = closed || inPlay ? "closed" : "open";
    $("call").textContent = w(closed || inPlay ? "console.call.closed" : "console.call.open");
    $("bank-line").textContent = bankLine(m);
    $("bank-line").dataset.phase = m.bank ? m.bank.phase : "";
    $("money-status").textContent = statusLine(m, closed);
    $("money-faults").replaceChildren(...m.faults.map((f) => el("span", "refusal", w("console.money.fault", { fault: f }))));
    if (cdf) autoPick(m, closed);
    renderPlaces(m);
    $("prime-line").textContent = cdf && m.prime && m.prime.length
      ? w("console.prime", { order: m.prime.map((p) => p.replace(/^seat /, "")).join(" \u00b7 ") }) : "";
    $("chosen").textContent = chosenLine(m);
    $("chips").replaceChildren(...chipButtons(m, closed));
    $("amount").textContent = pick.amount ? fmt(pick.amount) : w("console.amount");
    if (!cdf || closed || m.offers.outsiders === "none") $("outsider-row").hidden = true;
    renderPlays(m, closed);
    const stakes = stakesOf(m);
    const showSettlement = !!m.settlement && (closed ? false : stakes.length === 0 || !round);
    $("stakes-list").hidden = showSettlement;
    $("stakes-sum").hidden = showSettlement || stakes.length === 0;
    $("stakes-sum").textContent = w("console.stakes_sum", { n: stakes.length,
      sum: fmt(fromCents(stakes.reduce((total, s) => total + cents(s.amount), 0n))) });
    $("stakes-list").replaceChildren(...stakes.map((s) => {
      const li = el("li", "stake");
      li.dataset.who = s.who || `box ${s.box}`;
      li.append(el("span", "", `${who(s.who || `box ${s.box}`)} \u00b7 ${play(s.kind || s.bet)} \u00b7 ${fmt(s.amount)}` +
        (s.over_line ? " " + w("console.over_line") : "") + (s.carried ? " " + w("console.stays") : "")));
      if (!closed && s.kind !== "difference" && !s.carried) {
        li.append(button(w("console.play.withdraw"), "quiet withdraw", () => act("withdraw", { stake: s.id }),
          { stake: s.id }));
      }
      return li;
    }));
    renderSettlement(m.settlement, showSettlement);
    renderSupervisor(m, closed);
  }

  // The house's chips: each tap adds one to the amount.
  function chipButtons(m, off) {
    return chipsOf(m).map((value) => {
      const b = button(fmtChip(fromCents(value)), "chip-value", () => {
        pick.amount = fromCents(cents(pick.amount || "0") + value);
        renderMoney(money);
      }, { chip: fromCents(value) });
      b.disabled = off;
      return b;
    });
  }

  function fmtChip(value) {
    const n = Number(value);
    return n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : value;
  }

  function bankLine(m) {
    if (m.game === "punto-banco") {
      const l = m.limits;
      return w("console.pb.limits", { min: fmt(l.min_stake), max: l.max_stake ? fmt(l.max_stake) : "\u2014" });
    }
    const b = m.bank;
    if (!b) return w("console.bank.none");
    if (b.phase === "held") return `${m.bank_text} \u00b7 ${who(b.holder)}`;
    if (b.phase === "offer") return b.standing ? w("console.bank.offer_standing", { amount: fmt(b.offer) })
      : w("console.bank.offer", { amount: fmt(b.offer), who: who(`seat ${m.turn}`) });
    if (b.phase === "auction") {
      const top = b.bids.length ? b.bids[b.bids.length - 1] : null;
      return top ? w("console.bank.bid", { who: who(top[0]), amount: fmt(top[1]) }) : w("console.bank.no_bid");
    }
    return m.turn ? w("console.bank.turn", { who: who(`seat ${m.turn}`) }) : w("console.bank.nobody");
  }

  function statusLine(m, closed) {
    const round = m.round;
    if (closed) return w("console.status.closed", { n: round.coup }) +
      (round.holder ? " \u00b7 " + w("console.status.holder", { who: who(round.holder) }) : "");
    const seated = m.seating ? m.seating.occupied.length : 0;
    if (m.begun === false && m.offers.min_players && seated < m.offers.min_players) {
      return w("console.status.begins", { n: m.offers.min_players, seated }); // 001, 003
    }
    const parts = [w("console.status.open")];
    if (m.bank && m.bank.suivi) parts.push(w("console.status.suivi", { who: who(m.bank.suivi) }));
    if (round && round.holder) parts.push(w("console.status.holder", { who: who(round.holder) }));
    return parts.join(" \u00b7 ");
  }

  function chosenLine(m) {
    if (m.game === "punto-banco") return pick.box ? w("console.chosen", { who: who(`box ${pick.box}`) }) : w("console.touch_box");
    return pick.who ? w("console.chosen", { who: who(pick.who) }) : w("console.touch_place");
  }

  function occupiedKey(m, key) {
    return !!key && key.startsWith("seat ") && m.seating.occupied.includes(Number(key.slice(5)));
  }

  // The player the croupier asks next, chosen for him: the banker in turn while the bank is
  // to take, then the punters in Prime order, each after the last who staked.
  function autoPick(m, closed) {
    if (!pick.auto && pick.who && (pick.who.startsWith("outsider ") || occupiedKey(m, pick.who))) return;
    pick.who = null;
    pick.auto = true;
    const bank = m.bank;
    if (!bank || closed) return;
    if (bank.phase !== "held") {
      if (m.turn && bank.phase === "vacant") pick.who = `seat ${m.turn}`;
      return;
    }
    const staked = new Set(stakesOf(m).map((s) => s.who));
    const prime = m.prime || [];
    const from = lastStaked ? prime.indexOf(lastStaked) + 1 : 0;
    pick.who = prime.slice(from).find((p) => !staked.has(p)) || prime.find((p) => !staked.has(p)) || null;
  }

  // The places around the table as the house numbers them, from the croupier's right
  // anticlockwise (004: "numbered one to nine anti-clockwise from the right of the
  // croupier"); the croupier sits at the bottom of the drawing, facing the screen.
  function renderPlaces(m) {
    const box = $("seats");
    if (!m) { box.replaceChildren(); return; }
    const cdf = m.game === "chemin-de-fer";
    const count = cdf ? m.seating.places : m.limits.places;
    const gap = 28; // degrees left free either side of the croupier
    const staked = new Map();
    for (const s of stakesOf(m)) {
      const key = s.who || `box ${s.box}`;
      staked.set(key, (staked.get(key) || []).concat([s]));
    }
    const prime = cdf ? (m.prime || []) : [];
    const nodes = [];
    for (let n = 1; n <= count; n++) {
      const angle = (90 - gap - (n - 1) * (360 - 2 * gap) / Math.max(1, count - 1)) * Math.PI / 180;
      const key = cdf ? `seat ${n}` : `box ${n}`;
      const occupied = cdf ? m.seating.occupied.includes(n) : true;
      const b = el("button", "seat");
      b.style.left = `${50 + 50 * Math.cos(angle)}%`;
      b.style.top = `${50 + 50 * Math.sin(angle)}%`;
      b.dataset[cdf ? "seat" : "box"] = String(n);
      b.dataset.occupied = String(occupied);
      b.append(el("span", "n", String(n)));
      let what = "";
      const bank = cdf ? m.bank : null;
      if (bank && bank.holder === key) { what = w("console.role.banker"); b.dataset.role = "banker"; }
      else if (bank && bank.partner === key) what = w("console.role.partner");
      else if (bank && bank.suivi === key) what = w("console.role.suivi");
      const mine = staked.get(key);
      if (mine) {
        b.dataset.staked = "true";
        what = mine.length === 1 ? fmt(mine[0].amount) : `${mine.length} \u00d7`;
      } else if (!occupied) what = w("console.role.empty");
      if (what) b.append(el("span", "what", what));
      const order = prime.indexOf(key);
      if (order >= 0) b.append(el("span", "order", String(order + 1)));
      b.setAttribute("aria-pressed", String(cdf ? pick.who === key : pick.box === n));
      b.addEventListener("click", () => touchPlace(n, key, occupied, cdf));
      nodes.push(b);
    }
    box.replaceChildren(...nodes);
  }

  function touchPlace(n, key, occupied, cdf) {
    if (!money) return;
    if (!cdf) { pick.box = pick.box === n ? null : n; renderMoney(money); return; }
    if (!occupied) { act("sit", { seat: String(n) }); return; }
    pick.who = key;
    pick.auto = false;
    renderMoney(money);
  }

  function renderPlays(m, closed) {
    const plays = [];
    const choices = [];
    const whoKey = pick.who;
    const amount = pick.amount;
    const need = (args) => Object.values(args).every((v) => v);
    const make = (text, kind, args, cls, after) => {
      const b = button(text, "play " + (cls || ""), () => act(kind, args, after),
        { kind, play: args.kind || args.bet || kind });
      b.disabled = !need(args);
      return b;
    };
    const staked = (data) => { lastStaked = whoKey; pick.auto = true; return data; };
    if (m.game === "punto-banco") {
      if (!closed) {
        for (const bet of m.offers.bets) {
          const b = make(play(bet), "bet", { box: pick.box ? String(pick.box) : "", bet, amount }, "go");
          b.dataset.bet = bet;
          plays.push(b);
        }
      }
    } else {
      const bank = m.bank;
      const occupied = occupiedKey(m, whoKey);
      const seat = occupied ? whoKey.slice(5) : "";
      if (bank.phase === "vacant") {
        plays.push(make(w("console.play.take_bank"), "take_bank", { who: whoKey, amount }, "go",
          () => { lastStaked = null; pick.auto = true; }));
        if (m.offers.open_bank) plays.push(make(w("console.play.open_bank"), "take_bank", { who: whoKey, amount: "open" }));
        plays.push(make(w("console.play.decline_bank"), "decline_bank", { who: whoKey }, "quiet"));
      } else if (bank.phase === "offer") {
        plays.push(make(w("console.play.accept_offer"), "accept_offer", { who: whoKey }, "go"));
        if (!bank.standing) plays.push(make(w("console.play.decline_offer"), "decline_bank", { who: whoKey }, "quiet"));
        else plays.push(make(w("console.play.to_auction"), "to_auction", {}));
      } else if (bank.phase === "auction") {
        plays.push(make(w("console.play.bid"), "bid", { who: whoKey, amount }, "go"));
        plays.push(make(w("console.play.award"), "award", {}));
      } else if (!closed) {
        const kinds = m.offers.kinds;
        if (kinds.includes("table")) plays.push(make(w("console.play.stake"), "stake", { who: whoKey, amount }, "go", staked));
        if (kinds.includes("banco_solo")) plays.push(make(play("banco_solo"), "banco", { who: whoKey, kind: "banco_solo" }, "", staked));
        if (kinds.includes("banco")) plays.push(make(play("banco"), "banco", { who: whoKey, kind: "banco" }, "", staked));
        if (kinds.includes("banco_with_table")) {
          plays.push(make(play("banco_with_table"), "banco", { who: whoKey, kind: "banco_with_table", amount }, "", staked));
        }
        const banco = stakesOf(m).find((s) => s.kind === "banco");
        if (banco) plays.push(make(w("console.play.share", { who: who(banco.who) }), "share", { who: whoKey, of: banco.who, amount }, "", staked));
        if (m.offers.over_line) {
          const b = make(w("console.play.over_line"), "stake", { who: whoKey, amount, over_line: "true" }, "quiet", staked);
          b.dataset.over = "true";
          plays.push(b);
        }
        for (const may of (m.may || [])) {
          choices.push(may === "garage" ? make(w("console.play.garage"), "garage", { amount })
            : make(w(`console.play.${may}`), may, {}));
        }
      }
      if (seat && !closed && bank.holder !== whoKey) plays.push(make(w("console.play.leave"), "leave", { seat }, "quiet"));
      if (!closed && m.offers.outsiders !== "none") {
        plays.push(button(w("console.outsider"), "play quiet", () => {
          $("outsider-row").hidden = !$("outsider-row").hidden;
          if (!$("outsider-row").hidden) $("outsider").focus();
        }, { kind: "outsider" }));
      }
    }
    $("plays").replaceChildren(...plays);
    $("bank-choices").replaceChildren(...choices);
  }

  // The last settlement, line by line in the house's payment order (000 rule 26): the lines
  // come in that order from the money and are never sorted here.
  function renderSettlement(s, shown) {
    const box = $("settlement");
    box.hidden = !s || !shown;
    if (!s) return;
    box.dataset.shoe = String(s.shoe);
    box.dataset.coup = String(s.coup);
    $("settlement-title").textContent = w("console.settlement", { n: s.coup, outcome: outcome(s.outcome),
      sign: money.locale.sign });
    $("settlement-lines").tBodies[0].replaceChildren(...s.lines.map((l) => {
      const tr = el("tr");
      tr.dataset.who = l.who;
      tr.dataset.result = l.result;
      const kind = l.kind === "house" ? "" : play(l.kind); // the house's line: its name once
      for (const text of [who(l.who), kind, fmt(l.staked, true), result(l.result), fmt(l.paid, true)]) {
        tr.append(el("td", "", text));
      }
      return tr;
    }));
    const sums = [w("page.commission", { amount: fmt(s.commission) })];
    if (s.bank) {
      if (s.bank.ends) sums.push(w("console.bank.passes", { who: who(s.bank.passes_to) }));
      else sums.push(w("console.bank.after", { amount: fmt(s.bank.after) }));
      if (s.bank.set_aside && Number(s.bank.set_aside) > 0) {
        sums.push(w("console.bank.schokolade", { amount: fmt(s.bank.set_aside) }));
      } else if (!s.bank.ends && Number(s.bank.uncovered) > 0) {
        sums.push(w("console.bank.uncovered", { amount: fmt(s.bank.uncovered) }));
      }
    }
    $("settlement-sums").textContent = sums.join(" \u00b7 ");
  }

  // ---- a supervisor's actions, on the croupier's screen ----------------------------------------

  let correctStake = null;

  function renderSupervisor(m, closed) {
    const options = m.correctable ? stakesOf(m).filter((s) => s.kind !== "difference") : [];
    $("correct-row").hidden = !m.correctable || !$("limits-box").hidden;
    if (!options.some((s) => s.id === correctStake)) correctStake = null;
    $("correct-stakes").replaceChildren(...options.map((s) => {
      const b = button(`${who(s.who || `box ${s.box}`)} ${fmt(s.amount)}`, "quiet", () => {
        correctStake = s.id; renderSupervisor(money, closed);
      }, { stake: s.id });
      b.setAttribute("aria-pressed", String(correctStake === s.id));
      return b;
    }));
    $("correct-chips").replaceChildren(...chipButtons(m, false));
    $("correct-amount").textContent = pick.amount ? fmt(pick.amount) : w("console.amount");
    const reason = $("money-reason").value.trim();
    $("correct-go").disabled = !(correctStake && pick.amount !== "" && reason.length >= 3);
    $("reopen-void").disabled = !(m.reopenable && reason.length >= 3);
    $("reopen-rules").disabled = !(m.reopenable && reason.length >= 3);
    $("reopen-void").parentElement.hidden = !m.reopenable;
    const row = $("limits-row");
    const keys = LIMITS[m.game];
    if (row.dataset.for !== keys.join(",")) {
      row.dataset.for = keys.join(",");
      row.replaceChildren(...keys.map((k) => {
        const label = el("label", "limit", w(`console.limit.${k}`));
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
      input.placeholder = m.limits[k] === null ? "\u2014" : fmt(m.limits[k]);
    }
    const changed = keys.some((k) => $(`limit-${k}`).value.trim());
    $("limits-go").disabled = !(changed && reason.length >= 3);
    $("void-go").disabled = reason.length < 3;
  }

  // A supervisor's action: taken at once by a supervisor, else with her approval asked here
  // (her PIN or badge authorises this one action; the croupier stays signed in).
  function needsApproval(kind) {
    if (!me) return true;
    if (Array.isArray(me.needs_approval)) return me.needs_approval.includes(kind);
    return me.role !== "supervisor" && SUPERVISOR_KINDS.includes(kind);
  }

  async function supervisorAct(kind, args) {
    const reason = $("money-reason").value.trim();
    const full = { ...args, reason };
    const done = () => {
      $("money-reason").value = "";
      $("supervisor-sheet").hidden = true;
      for (const input of document.querySelectorAll("[data-limit]")) input.value = "";
      correctStake = null;
    };
    if (!needsApproval(kind)) { await act(kind, full, done); return; }
    askApproval(kind, async (approval) => {
      const r = await act(kind, full, done, approval);
      return r.status === 200;
    });
  }

  let approving = null; // { kind, go, person, pin }

  function askApproval(kind, go) {
    approving = { kind, go, person: null, pin: "" };
    $("approval-title").textContent = w("console.approval.title", { what: w(`console.play.${kind}`) });
    $("approvers").replaceChildren(...peopleList.filter((p) => p.pin && (!me || p.id !== me.person)).map((p) =>
      button(p.name, "person", () => {
        approving.person = p.id;
        approving.pin = "";
        $("approval-for").textContent = w("console.pin_for", { name: p.name });
        $("approval-dots").textContent = "";
        $("approvers").hidden = true;
        $("approval-pad").hidden = false;
      }, { person: p.id })));
    $("approvers").hidden = false;
    $("approval-pad").hidden = true;
    $("approval-badge").value = "";
    $("approval").hidden = false;
  }

  async function approve(approval) {
    const go = approving.go;
    approving.pin = "";
    $("approval-dots").textContent = "";
    if (await go(approval)) {
      approving = null;
      $("approval").hidden = true;
    }
  }

  async function voidCoup() {
    await supervisorAct("void", {});
  }

  // ---- holds and faults: they take the screen until resolved ---------------------------------

  function renderLatches(latches, refusals) {
    const box = $("latches");
    $("latch-panel").hidden = latches.length === 0;
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
    $("refusals").replaceChildren(...refusals.map((r) => el("p", "refusal", w("console.key_refused", { why: r.why }))));
  }

  function ruleToggle(node, selector) {
    const toggle = node.querySelector(".rule-toggle");
    toggle.textContent = w("console.rule.show");
    toggle.addEventListener("click", () => {
      const rule = node.querySelector(selector);
      rule.hidden = !rule.hidden;
    });
  }

  function reasonChips(node, key, onPick) {
    const chips = node.querySelector(".chips");
    for (const reason of (REASONS[key] || [])) {
      chips.append(button(w(`console.reason.${reason}`), "chip", () => {
        node.querySelector(".reason").value = w(`console.reason.${reason}`);
        onPick();
      }));
    }
  }

  function makeLatch(latch) {
    const node = $("latch-template").content.firstElementChild.cloneNode(true);
    node.dataset.latch = latch.id;
    const ui = { node, latch, way: null, rank: null, suit: null };
    ruleToggle(node, ".latch-rule");
    reasonChips(node, latch.code, () => updateLatch(ui, ui.latch));
    node.querySelector(".reason").placeholder = w("console.reason");
    for (const r of RANKS) {
      const b = button(r === "T" ? "10" : r, "rank", () => { ui.rank = r; updateLatch(ui, ui.latch); }, { rank: r });
      node.querySelector(".ranks").append(b);
    }
    for (const s of "CDHS") {
      const b = button(SUITS[s], "suit", () => { ui.suit = s; updateLatch(ui, ui.latch); }, { suit: s });
      node.querySelector(".suits").append(b);
    }
    node.querySelector(".reason").addEventListener("input", () => updateLatch(ui, ui.latch));
    node.querySelector(".resolve").addEventListener("click", () => resolve(ui));
    return ui;
  }

  function wayWords(code, way) {
    const own = `console.way.${code}.${way}`;
    return w(own) !== own ? w(own) : w(`console.way.${way}`);
  }

  function updateLatch(ui, latch) {
    ui.latch = latch;
    const node = ui.node;
    node.dataset.held = String(latch.held);
    node.querySelector(".latch-title").textContent = w(`console.hold.${latch.code}`) !== `console.hold.${latch.code}`
      ? w(`console.hold.${latch.code}`) : latch.code;
    node.querySelector(".latch-action").textContent = latch.action;
    let status;
    if (latch.kind === "fault") {
      status = w(latch.fault_on ? "console.fault.on" : "console.fault.cleared");
      if (latch.supervisor) status += " " + w("console.fault.supervisor");
    } else if (latch.held) {
      status = w("console.hold.held") + (latch.supervisor ? " " + w("console.hold.supervisor") : "");
    } else {
      status = w("console.hold.lifted", { how: latch.lifted, by: latch.lifted_by });
    }
    node.querySelector(".latch-status").textContent = status;
    node.querySelector(".latch-rule").textContent = latch.rule;
    // A supervisor's hold on a croupier's screen: resolved with her approval, he stays in.
    const approved = latch.supervisor && !(me && me.role === "supervisor");
    node.querySelector(".resolve").textContent = w(approved ? "console.resolve_approved" : "console.resolve");
    node.querySelector(".resolve").dataset.approval = String(approved);
    const ways = node.querySelector(".ways");
    if (!latch.held) ui.way = null;
    if (ways.dataset.for !== latch.ways.join(",")) {
      ways.dataset.for = latch.ways.join(",");
      ways.replaceChildren(...latch.ways.map((way) => button(wayWords(latch.code, way), "way",
        () => { ui.way = way; updateLatch(ui, ui.latch); }, { way })));
    }
    for (const b of ways.children) b.setAttribute("aria-pressed", String(b.dataset.way === ui.way));
    const keys = node.querySelector(".card-keys");
    keys.hidden = ui.way !== "ENTER";
    for (const b of keys.querySelectorAll(".rank")) b.setAttribute("aria-pressed", String(b.dataset.rank === ui.rank));
    for (const b of keys.querySelectorAll(".suit")) b.setAttribute("aria-pressed", String(b.dataset.suit === ui.suit));
    const chosen = ui.rank && ui.suit ? ui.rank + ui.suit : null;
    keys.querySelector(".card-chosen").replaceChildren(...(chosen ? [card(chosen, true)] : []));
    const reason = node.querySelector(".reason").value.trim();
    const ready = reason.length >= 3 && (!latch.held || (ui.way &&
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
    const sent = async (approval) => {
      ui.node.querySelector(".resolve").disabled = true;
      const body = { id: newId(), kind: "resolve", args };
      if (approval) body.approval = approval;
      const r = await send("/api/actions", body);
      if (r.status === 200) {
        toast(w("console.resolved", { what: w(`console.hold.${latch.code}`) }));
      } else {
        if (r.status === 401 && !approval) return showSignIn(r.data.error);
        toast(r.data.error || w("console.refused", { status: r.status }), "error");
        updateLatch(ui, ui.latch);
      }
      return r.status === 200;
    };
    if (latch.supervisor && !(me && me.role === "supervisor")) askApproval("resolve", sent);
    else await sent(null);
  }

  // ---- what only the croupier sees: a row of plain buttons, the report on a sheet -------------

  const NAMES_A_CARD = ["banker_card_lost", "card_fell"];

  function renderReports(reports) {
    const offered = reports.filter((r) => r.applies); // the house's own rules only
    const box = $("reports");
    const wanted = offered.map((r) => `${r.kind}:${r.why_not === null}`).join(",");
    if (box.dataset.for !== wanted) {
      box.dataset.for = wanted;
      box.replaceChildren(...offered.map((r) => {
        const b = button(w(`console.report.${r.kind}`), "quiet report-open", () => openReport(r.kind), { report: r.kind });
        b.dataset.open = String(r.why_not === null);
        return b;
      }));
    }
    if (reportOpen) {
      const now = offered.find((r) => r.kind === reportOpen.report.kind);
      if (now) updateReport(reportOpen, now);
    }
  }

  function openReport(kind) {
    const report = ((shared && shared.console && shared.console.reports) || []).find((r) => r.kind === kind);
    if (!report) return;
    const node = $("report-template").content.firstElementChild.cloneNode(true);
    node.dataset.report = kind;
    const ui = { node, report, position: null, face: null };
    node.querySelector(".report-title").textContent = w(`console.report.${kind}`);
    ruleToggle(node, ".report-rule");
    for (const face of ["up", "down"]) {
      node.querySelector(".faces").append(button(w(`console.face.${face}`), "face",
        () => { ui.face = face; updateReport(ui, ui.report); }, { face }));
    }
    node.querySelector(".faces").hidden = kind !== "card_fell";
    node.querySelector(".partner-row").hidden = kind !== "partner_objection";
    node.querySelector(".partner-label").textContent = w("console.partner_place");
    reasonChips(node, kind, () => updateReport(ui, ui.report));
    node.querySelector(".reason").placeholder = w("console.seen");
    node.querySelector(".report-go").textContent = w("console.report.go");
    node.querySelector(".reason").addEventListener("input", () => updateReport(ui, ui.report));
    node.querySelector(".partner").addEventListener("input", () => updateReport(ui, ui.report));
    node.querySelector(".report-go").addEventListener("click", () => sendReport(ui));
    $("report-box").replaceChildren(node);
    reportOpen = ui;
    updateReport(ui, report);
    $("report-sheet").hidden = false;
  }

  function closeReport() {
    reportOpen = null;
    $("report-sheet").hidden = true;
    $("report-box").replaceChildren();
  }

  function updateReport(ui, report) {
    ui.report = report;
    const node = ui.node;
    const open = report.why_not === null;
    node.dataset.open = String(open);
    node.querySelector(".report-rule").textContent = report.rule;
    node.querySelector(".report-why").textContent = w(open ? `console.report.${report.kind}.when`
      : `console.report.${report.kind}.not_now`);
    for (const part of [".positions", ".faces", ".partner-row", ".chips", ".reason", ".report-go"]) {
      node.querySelector(part).style.display = open ? "" : "none";
    }
    const positions = node.querySelector(".positions");
    const names = NAMES_A_CARD.includes(report.kind);
    positions.hidden = !names;
    if (!report.positions.includes(ui.position)) ui.position = null;
    if (positions.dataset.for !== report.positions.join(",")) {
      positions.dataset.for = report.positions.join(",");
      positions.replaceChildren(...report.positions.map((p) => button(p, "position",
        () => { ui.position = p; updateReport(ui, ui.report); }, { position: p })));
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
      toast(w("console.reported", { what: w(`console.report.${kind}`) }));
      closeReport();
    } else {
      if (r.status === 401) return showSignIn(r.data.error);
      toast(r.data.error || w("console.refused", { status: r.status }), "error");
      updateReport(ui, ui.report);
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
      toast(r.data.error || w("console.refused", { status: r.status }), "error");
      return;
    }
    $("recall-note").textContent = r.data.consistent ? "" : w("console.recall.inconsistent");
    list.replaceChildren(...r.data.coups.map(told));
  }

  function eventWords(e) {
    switch (e.what) {
      case "button":
        if (e.name === "KEY") return e.taken ? w("console.event.key", { who: e.person }) : w("console.event.key_refused", { why: e.why });
        return w("console.event.button", { name: e.name + (e.arg ? " " + e.arg : "") }) + (e.waited ? " " + w("console.event.waited") : "");
      case "fault": return w(e.on ? "console.event.fault_on" : "console.event.fault_off", { code: e.code });
      case "irregularity": return `${e.words} (${e.rule})${e.hold ? " \u2014 " + w("console.event.held") : ""}`;
      case "resolved": return w("console.event.lifted", { how: e.how, by: e.by });
      case "console": {
        const what = ["punter_bac", "banker_card_lost", "card_fell", "partner_objection"].includes(e.kind)
          ? w("console.reported", { what: w(`console.report.${e.kind}`) }) +
            (e.position ? ` (${e.position}${e.face ? ", " + w(`console.face.${e.face}`) : ""})` : "") +
            (e.partner ? ` (${who(e.partner)})` : "")
          : (e.kind === "void" ? w("console.event.voided") : w("console.event.resolved") + (e.way ? ` (${wayWords("", e.way)})` : ""));
        return w("console.event.by", { what, by: e.by, reason: e.reason }) + approvedBy(e);
      }
      case "result": return outcome(e.outcome) || e.outcome;
      case "correction": return w("console.event.corrected", { by: e.by, change: e.change, reason: e.reason }) + approvedBy(e);
      default: return e.what;
    }
  }

  function approvedBy(e) {
    return e.approved_by ? " " + w("console.approved_by", { who: e.approved_by.person }) : "";
  }

  function told(coup) {
    const box = el("article", "told");
    box.dataset.shoe = coup.shoe;
    box.dataset.coup = coup.coup;
    box.dataset.outcome = coup.outcome || "";
    box.append(el("h3", "", `${w("page.shoe", { n: coup.shoe })} \u00b7 ${w("page.coup", { n: coup.coup })} \u2014 ` +
      (coup.in_play ? w("console.recall.in_play") : outcome(coup.outcome))));
    const row = el("div", "row");
    for (const side of ["punter", "banker"]) {
      const hand = el("div", "hand");
      hand.append(el("h4", "", w(`console.side.${side}`)));
      const cs = el("div", "cards");
      cs.append(...coup[side].cards.map((c) => card(c, true)));
      hand.append(cs);
      if (coup[side].total !== null) {
        hand.append(el("p", "total", coup[side].bac ? w("page.bac", { n: coup[side].total }) : String(coup[side].total)));
      }
      row.append(hand);
    }
    box.append(row);
    box.append(el("h4", "", w("console.recall.cards")));
    const cards = el("ol", "cards-out");
    for (const c of coup.cards) {
      const name = c.code === null ? w("console.recall.hidden") : (c.code === "??" ? w("console.recall.unreadable") : c.code);
      const entered = c.entered ? ", " + w("console.recall.keyed", { code: c.entered }) : "";
      const li = el("li", "", `${name} (${w(`console.face.${c.face === "U" || c.face === "up" ? "up" : "down"}`)}${entered}) \u2192 ${c.fate}`);
      if (c.code) li.dataset.code = c.code;
      cards.append(li);
    }
    box.append(cards);
    box.append(el("h4", "", w("console.recall.events")));
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
      box.append(el("p", "quiet", w("console.recall.no_stakes")));
      return box;
    }
    if (coup.stakes) {
      const b = coup.stakes.bank;
      box.append(el("h4", "", b ? w("console.recall.against", { who: who(b.banker), amount: fmt(b.amount) }) : w("page.stakes")));
      const list = el("ol", "recall-stakes");
      for (const s of coup.stakes.stakes) {
        const li = el("li", "", `${who(s.who || `box ${s.box}`)} \u00b7 ${play(s.kind || s.bet)} \u00b7 ${fmt(s.amount)}` +
          (s.over_line ? " " + w("console.over_line") : ""));
        li.dataset.who = s.who || `box ${s.box}`;
        list.append(li);
      }
      box.append(list);
    }
    if (coup.settlement) {
      const s = coup.settlement;
      box.append(el("h4", "", w("console.recall.settlement", { commission: fmt(s.commission) }) +
        (s.bank ? " \u00b7 " + (s.bank.ends ? w("console.bank.passes", { who: who(s.bank.passes_to) })
          : w("console.bank.after", { amount: fmt(s.bank.after) })) : "")));
      const list = el("ol", "recall-settlement");
      for (const l of s.lines) {
        const li = el("li", "", w("console.recall.line", { who: who(l.who), play: play(l.kind), result: result(l.result),
          paid: fmt(l.paid), net: fmt(l.net) }));
        li.dataset.who = l.who;
        list.append(li);
      }
      box.append(list);
    }
    for (const c of coup.corrections || []) {
      box.append(el("p", "correction", (c.change === "settlement"
        ? w("console.recall.reopened", { how: c.how, by: c.by, reason: c.reason })
        : w("console.recall.corrected", { who: who(c.who), amount: fmt(c.amount), by: c.by, reason: c.reason })) + approvedBy(c)));
    }
    return box;
  }

  // ---- wiring --------------------------------------------------------------------------------

  function keypad() {
    const keys = $("amount-keys");
    const update = () => {
      $("keypad-amount").textContent = pick.amount ? fmt(pick.amount) : w("console.amount");
      if (money) renderMoney(money);
    };
    for (const k of ["1", "2", "3", "4", "5", "6", "7", "8", "9", ".", "0", "00"]) {
      keys.append(button(k, "key", () => { if (pick.amount.length < 15) pick.amount += k; update(); }, { amountKey: k }));
    }
    keys.append(button("\u232b", "key quiet", () => { pick.amount = pick.amount.slice(0, -1); update(); }, { amountKey: "back" }));
    $("keypad-open").addEventListener("click", () => { update(); $("keypad").hidden = false; });
    $("keypad-done").addEventListener("click", () => { $("keypad").hidden = true; });
    $("amount-clear").addEventListener("click", () => { pick.amount = ""; update(); });
    const approvalKeys = $("approval-keys");
    for (const k of ["1", "2", "3", "4", "5", "6", "7", "8", "9", "back", "0", "ok"]) {
      approvalKeys.append(button(k === "back" ? "\u232b" : (k === "ok" ? "OK" : k), "key" + (k === "ok" ? " go" : ""), () => {
        if (!approving) return;
        if (k === "back") approving.pin = approving.pin.slice(0, -1);
        else if (k === "ok") { if (approving.person && approving.pin) approve({ method: "pin", person: approving.person, pin: approving.pin }); return; }
        else if (approving.pin.length < 12) approving.pin += k;
        $("approval-dots").textContent = "\u25cf".repeat(approving.pin.length);
      }, { approvalKey: k }));
    }
  }

  document.addEventListener("DOMContentLoaded", async () => {
    const got = await call("GET", "/words.json");
    if (got.status === 200) words = got.data;
    applyWords();
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
    keypad();
    $("outsider-go").addEventListener("click", () => {
      const label = $("outsider").value.trim();
      if (label) {
        pick.who = `outsider ${label}`;
        pick.auto = false;
        $("outsider").value = "";
        $("outsider-row").hidden = true;
        if (money) renderMoney(money);
      }
    });
    $("report-close").addEventListener("click", closeReport);
    $("supervisor-open").addEventListener("click", () => {
      const chips = $("reason-chips");
      chips.replaceChildren(...[...REASONS.money, ...REASONS.void.filter((r) => r !== "dispute")].map((r) =>
        button(w(`console.reason.${r}`), "chip", () => {
          $("money-reason").value = w(`console.reason.${r}`);
          if (money) renderSupervisor(money, $("money-panel").dataset.closed === "true");
          $("void-go").disabled = false;
        })));
      if (money) renderSupervisor(money, $("money-panel").dataset.closed === "true");
      else $("supervisor-money").hidden = true;
      $("supervisor-sheet").hidden = false;
    });
    $("supervisor-close").addEventListener("click", () => { $("supervisor-sheet").hidden = true; });
    $("limits-open").addEventListener("click", () => {
      $("limits-box").hidden = !$("limits-box").hidden;
      if (money) renderSupervisor(money, $("money-panel").dataset.closed === "true");
    });
    $("correct-go").addEventListener("click", () => supervisorAct("correct", { stake: correctStake, amount: pick.amount }));
    $("reopen-void").addEventListener("click", () => supervisorAct("reopen", { how: "void" }));
    $("reopen-rules").addEventListener("click", () => supervisorAct("reopen", { how: "rules" }));
    $("limits-go").addEventListener("click", () => {
      const args = {};
      for (const input of document.querySelectorAll("[data-limit]")) {
        if (input.value.trim()) args[input.dataset.limit] = input.value.trim();
      }
      supervisorAct("limits", args);
    });
    $("void-go").addEventListener("click", voidCoup);
    $("money-reason").addEventListener("input", () => {
      if (money) renderSupervisor(money, $("money-panel").dataset.closed === "true");
      $("void-go").disabled = $("money-reason").value.trim().length < 3;
    });
    $("approval-badge-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const badge = $("approval-badge").value;
      $("approval-badge").value = "";
      if (badge && approving) approve({ method: "badge", badge });
    });
    $("approval-cancel").addEventListener("click", () => { approving = null; $("approval").hidden = true; });
    const r = await call("GET", "/api/me");
    if (r.status === 200) signedIn(r.data.me); else showSignIn();
  });
})();
