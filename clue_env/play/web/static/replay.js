// The replay page: load a replay file (evaluate.py --replays DIR), which the server checks and
// plays again with the current code (POST /api/replays), then step through the game
// (GET /api/replays/ID?step=K&view=V) forward and back, from any seat's view, the public view, or
// with every card shown (the game is over). Every string from the server is written with
// textContent.

import { Board } from "./board.js";
import { renderNotebook } from "./notebook.js";

const $ = (id) => document.getElementById(id);

const state = {
  board: null,
  boardData: null,
  replay: null, // the answer of POST /api/replays
  step: 0, // the position shown
  target: 0, // the position asked for last (keys pressed quickly step on from it)
  view: "all",
  position: null, // the answer of GET /api/replays/ID
  busy: false, // a position request is on its way (one at a time: a slider drag asks for the last step wanted)
};

function node(tag, content = "", className = "") {
  const n = document.createElement(tag);
  if (content) n.textContent = content;
  if (className) n.className = className;
  return n;
}

function say(text, kind = "info") {
  const m = $("message");
  m.textContent = text;
  m.className = `message ${kind}`;
  m.hidden = !text;
}

async function api(method, path, body = undefined) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: body === undefined ? { Accept: "application/json" } : { Accept: "application/json", "Content-Type": "application/json" },
      body,
      cache: "no-store",
      credentials: "omit",
    });
  } catch (e) {
    throw new Error(`the server cannot be reached (${e.message})`);
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) throw new Error(data && typeof data.error === "string" ? data.error : `HTTP ${response.status}`);
  return data;
}

function cardName(id) {
  return (state.replay && state.replay.names[id]) || id;
}

function cardKind(id) {
  const cards = (state.replay && state.replay.cards) || {};
  if ((cards.suspects || []).includes(id)) return "suspect";
  if ((cards.weapons || []).includes(id)) return "weapon";
  return "room";
}

function cardChip(id, extra = "") {
  return node("span", cardName(id), `card ${cardKind(id)} ${extra}`.trim());
}

function seatLabel(seat) {
  const s = state.replay.seats.find((x) => x.seat === seat);
  return s ? `${seat} (${s.name})` : seat;
}

// ------------------------------------------------------------------ loading

async function loadFile(file) {
  if (!file) return;
  say(`Checking ${file.name}: the server plays the game again…`);
  let text;
  try {
    text = await file.text();
  } catch (e) {
    say(`${file.name} cannot be read: ${e.message}`, "error");
    return;
  }
  let replay;
  try {
    replay = await api("POST", "/api/replays", text);
  } catch (e) {
    say(`${file.name} is refused: ${e.message}`, "error");
    return;
  }
  state.replay = replay;
  state.step = state.target = 0;
  if (!state.board) {
    state.boardData = await api("GET", "/api/board");
    state.board = new Board($("board"), state.boardData, () => {});
  }
  state.board.setNames(replay.names);
  const views = $("view");
  views.replaceChildren();
  const label = { all: "Every card", public: "Public view" };
  for (const v of replay.views) {
    const opt = node("option", label[v] || `${seatLabel(v)}'s view`);
    opt.value = v;
    views.appendChild(opt);
  }
  if (!replay.views.includes(state.view)) state.view = "all";
  views.value = state.view;
  for (const id of ["slider", "step-number"]) {
    $(id).max = String(replay.steps);
    $(id).value = "0";
  }
  const who = replay.seats.map((s) => `${s.name}: ${s.spec}`).join(", ");
  $("replay-info").textContent =
    `${file.name}: ${replay.num_players} players, ${replay.rules} rules, seed ${replay.seed}, ${replay.steps} steps (${who}).` +
    (replay.accounts ? " The agents' accounts are shown in the every-card view and, for its own decisions, in a seat's view." : "");
  say("");
  $("replay").hidden = false;
  await show(0);
}

// ------------------------------------------------------------------ stepping

async function show(step) {
  if (!state.replay) return;
  state.target = Math.max(0, Math.min(state.replay.steps, step));
  if (state.busy) return; // the request on its way asks for state.target next
  state.busy = true;
  try {
    for (;;) {
      const want = state.target;
      const view = state.view;
      const path = `/api/replays/${encodeURIComponent(state.replay.replay)}?step=${want}&view=${encodeURIComponent(view)}`;
      let pos;
      try {
        pos = await api("GET", path);
      } catch (e) {
        if (want === state.target && view === state.view) {
          state.target = state.step;
          say(e.message, "error");
          return;
        }
        continue; // another step was asked for meanwhile: ask for that one
      }
      if (want === state.target && view === state.view) {
        state.step = want;
        state.position = pos;
        render(pos);
        return;
      }
    }
  } finally {
    state.busy = false;
  }
}

function render(pos) {
  const replay = state.replay;
  const main = $("replay");
  main.dataset.step = String(pos.step);
  main.dataset.view = pos.view;
  $("slider").value = String(pos.step);
  $("step-number").value = String(pos.step);
  $("step-of").textContent = `of ${pos.steps} (turn ${pos.turn})`;
  $("first").disabled = $("back").disabled = pos.step === 0;
  $("next").disabled = $("last").disabled = pos.step === pos.steps;
  $("status").textContent = `Step ${pos.step} of ${pos.steps}`;

  // the board: the step's actor is ringed, and the viewing seat's token marked
  const viewSeat = pos.view.startsWith("player_") ? pos.view : null;
  state.board.update({
    public: pos.public,
    acting: pos.actor,
    seats: pos.seats.map((s) => ({ ...s, you: s.seat === viewSeat })),
    my_turn: false,
  });

  const dice = $("dice");
  dice.replaceChildren();
  const d = pos.public.dice || [];
  if (d.length) {
    dice.appendChild(node("span", "Dice:"));
    for (const v of d) dice.appendChild(node("span", String(v), "replay-die"));
  }

  // the step
  const line = $("step-line");
  if (pos.step === 0) {
    line.textContent = "Step 0: the deal, before any decision.";
  } else {
    line.replaceChildren(
      node("span", `Step ${pos.step} (turn ${pos.step_turn}): `),
      node("strong", seatLabel(pos.actor)),
      node("span", ` [${pos.actor_spec}]: `),
      node("span", pos.action_words, "action-words"),
    );
    line.lastChild.dataset.action = pos.action;
  }
  const events = $("events");
  events.replaceChildren(...pos.events.map((e) => node("li", e)));
  $("result").hidden = !pos.result;
  $("result").textContent = pos.result ? `Game over: ${pos.result}` : "";

  // the account
  $("account-panel").hidden = !pos.account_text;
  $("account").textContent = pos.account_text || "";

  // the seats
  const seats = $("seats");
  seats.replaceChildren();
  const eliminated = new Set(pos.public.eliminated || []);
  for (const s of pos.seats) {
    const li = node("li", "", "seat");
    li.dataset.seat = s.seat;
    if (s.seat === pos.actor) li.classList.add("acting");
    if (s.seat === viewSeat) li.classList.add("you");
    if (eliminated.has(s.seat)) li.classList.add("eliminated");
    li.append(node("span", "", `dot suspect-${s.character}`), node("span", s.name, "seat-name"), node("span", `${s.seat} · ${s.spec}`, "seat-meta"));
    if (pos.over && replay.outcome.winner !== null && `player_${replay.outcome.winner}` === s.seat) li.appendChild(node("span", "winner", "badge winner"));
    seats.appendChild(li);
  }

  // the cards the view may see
  const envelope = $("envelope");
  envelope.replaceChildren(...(pos.envelope || []).map((c) => cardChip(c, "envelope")));
  $("envelope-row").hidden = !pos.envelope;
  const tbody = $("hands").querySelector("tbody");
  tbody.replaceChildren();
  for (const [seat, hand] of Object.entries(pos.hands)) {
    const tr = node("tr");
    tr.dataset.seat = seat;
    const cards = node("td");
    cards.append(...hand.map((c) => cardChip(c)));
    tr.append(node("td", seatLabel(seat)), cards);
    tbody.appendChild(tr);
  }
  $("hands").hidden = Object.keys(pos.hands).length === 0;
  const boardCards = Object.entries(pos.board_cards || {});
  let hint = "";
  if (boardCards.length) hint = `Face down on the board: ${boardCards.map(([r, c]) => `${cardName(r)}: ${cardName(c)}`).join(", ")}.`;
  else if (pos.view === "public") hint = "The public view shows no hand: choose a seat's view, or every card.";
  $("cards-hint").textContent = hint;
  $("cards-title").textContent = pos.view === "all" ? "Every card" : viewSeat ? `${seatLabel(viewSeat)}'s hand` : "Cards";

  // the notebook of the viewing seat
  $("notebook-panel").hidden = !pos.notes;
  renderNotebook($("notebook"), pos.notes, replay.names, (where) => (where.startsWith("player_") ? seatLabel(where) : where), false);
}

// ------------------------------------------------------------------ wiring

function wire() {
  $("replay-file").addEventListener("change", (e) => loadFile(e.target.files[0]));
  const zone = $("drop-zone");
  zone.addEventListener("dragover", (e) => {
    e.preventDefault();
    zone.classList.add("dragging");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("dragging"));
  zone.addEventListener("drop", (e) => {
    e.preventDefault();
    zone.classList.remove("dragging");
    if (e.dataTransfer && e.dataTransfer.files.length) loadFile(e.dataTransfer.files[0]);
  });
  $("first").addEventListener("click", () => show(0));
  $("back").addEventListener("click", () => show(state.target - 1));
  $("next").addEventListener("click", () => show(state.target + 1));
  $("last").addEventListener("click", () => show(state.replay ? state.replay.steps : 0));
  $("slider").addEventListener("input", (e) => show(Number(e.target.value)));
  $("step-number").addEventListener("change", (e) => {
    const k = Number(e.target.value);
    if (Number.isInteger(k)) show(k);
  });
  $("view").addEventListener("change", (e) => {
    state.view = e.target.value;
    show(state.target);
  });
  document.addEventListener("keydown", (e) => {
    if (!state.replay || e.altKey || e.ctrlKey || e.metaKey) return;
    const tag = e.target && e.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return; // their own keys
    const to = { ArrowRight: state.target + 1, ArrowLeft: state.target - 1, Home: 0, End: state.replay.steps }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    show(to);
  });
}

wire();
