// The pit's sign-in: which floor this is, the name tiles (at the pit's own screens; elsewhere
// a staff id is typed) and a PIN pad, or a badge. The session is an HttpOnly cookie this
// script never sees; /api/me says who is signed in and as what. When a session ends (signed
// out, expired, removed) every request answers 401 and the sign-in screen comes back.
"use strict";

const ROLES = { pit_boss: "Pit boss", surveillance: "Surveillance", regulator: "Regulator" };
const byId = (id) => document.getElementById(id);
const newId = () => (crypto.randomUUID ? crypto.randomUUID()
  : Array.from(crypto.getRandomValues(new Uint8Array(16)),
    (b) => b.toString(16).padStart(2, "0")).join(""));
let pinPerson = null;
let pin = "";
let onSignedIn = () => {};

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body) };
  const response = await fetch(path, { credentials: "same-origin", ...init });
  let data = {};
  try { data = await response.json(); } catch (e) { data = {}; }
  return { status: response.status, data };
}

function hint(text) { byId("sign-in-hint").textContent = text || ""; }

function showPad(person) {
  pinPerson = person;
  pin = "";
  byId("pin-for").textContent = "PIN for " + person.name;
  byId("pin-dots").textContent = "";
  byId("pin-pad").hidden = false;
}

function hidePad() {
  pinPerson = null;
  pin = "";
  byId("pin-pad").hidden = true;
}

function signedIn(me) {
  document.body.dataset.screen = "floor";
  document.body.dataset.role = me.role;
  byId("sign-in").hidden = true;
  byId("who").hidden = false;
  byId("me-name").textContent = me.name;
  byId("me-role").textContent = ROLES[me.role] || me.role;
  byId("floor-name").textContent = me.floor;
  document.title = me.floor + " \u00b7 the pit";
  onSignedIn(me);
}

async function showSignIn(why) {
  document.body.dataset.screen = "sign-in";
  delete document.body.dataset.role;
  byId("who").hidden = true;
  byId("sign-in").hidden = false;
  byId("tiles").replaceChildren();
  hidePad();
  hint(why);
  const { status, data } = await api("/api/people");
  const floor = (data.floor && data.floor.name) || "the floor";
  byId("sign-in-floor").textContent = floor;
  byId("floor-name").textContent = floor;
  const people = byId("people");
  people.replaceChildren();
  byId("staff-form").hidden = status === 200;
  if (status !== 200) return;
  for (const person of data.people.filter((p) => p.pin)) {
    const tile = document.createElement("button");
    tile.type = "button";
    tile.textContent = person.name;
    tile.dataset.person = person.id;
    tile.addEventListener("click", () => showPad(person));
    people.append(tile);
  }
}

async function signIn(body) {
  const { status, data } = await api("/api/sign-in", { id: newId(), ...body });
  hidePad();
  if (status === 200) {
    byId("badge").value = "";
    hint("");
    signedIn(data.me);
  } else {
    hint(data.error || "sign-in refused");
  }
}

// Each page call that meets a 401 comes here: the session is over.
function sessionOver(why) { showSignIn(why || "your session has ended: sign in again"); }

function whenSignedIn(start) {
  onSignedIn = start;
  api("/api/me").then(({ status, data }) => {
    if (status === 200) signedIn(data.me);
    else showSignIn("");
  });
}

document.addEventListener("DOMContentLoaded", () => {
  byId("pin-pad").addEventListener("click", (event) => {
    const digit = event.target.dataset && event.target.dataset.digit;
    if (digit && pin.length < 12) pin += digit;
    byId("pin-dots").textContent = "\u2022".repeat(pin.length);
  });
  byId("pin-back").addEventListener("click", () => {
    pin = pin.slice(0, -1);
    byId("pin-dots").textContent = "\u2022".repeat(pin.length);
  });
  byId("pin-cancel").addEventListener("click", hidePad);
  byId("pin-ok").addEventListener("click", () => {
    if (pinPerson) signIn({ method: "pin", person: pinPerson.id, pin });
  });
  byId("staff-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const id = byId("staff-id").value.trim();
    if (id) showPad({ id, name: id });
  });
  byId("badge-form").addEventListener("submit", (event) => {
    event.preventDefault();
    if (byId("badge").value) signIn({ method: "badge", badge: byId("badge").value });
  });
  byId("sign-out").addEventListener("click", async () => {
    await api("/api/sign-out", { id: newId() });
    sessionOver("signed out");
  });
});
