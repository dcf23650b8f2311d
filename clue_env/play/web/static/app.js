// The page: the new-game form, then one seat's view of a game, polled while others decide.
// The seat's token comes from the link's fragment (#game=ID&token=TOKEN), is kept in
// sessionStorage (this tab only) and sent only in the Authorization header. Every string from
// the server is written with textContent.

import { ApiError, Seat, createGame, getBoard, getMeta } from "./api.js";
import { Board } from "./board.js";
import { chooseAccusation, chooseCard, chooseSuggestion } from "./dialogs.js";
import { renderNotebook } from "./notebook.js";

const $ = (id) => document.getElementById(id);
const STORE_KEY = "clue_env.seat";
// Polling: every POLL_MS while agents move (they move as the page polls); while waiting on
// another human, the pause grows by POLL_BACKOFF after each unchanged answer (a bodiless 304)
// up to POLL_MAX_MS, and drops back to POLL_MS as soon as the view changes.
const POLL_MS = 250;
const POLL_MAX_MS = 2000;
const POLL_BACKOFF = 1.5;
// a phone-sized screen: the action bar is a bottom sheet, the panels are tabs, the board zooms
const NARROW = window.matchMedia("(max-width: 700px)");
const RULE_NAMES = { classic: "Classic", edition2023: "2023 edition" };

const state = {
  meta: null,
  boardData: null,
  board: null,
  seat: null, // Seat
  invites: [], // [{seat, url}] for the creator
  view: null,
  logLength: 0,
  busy: false,
  pollTimer: null,
  pollMs: POLL_MS,
  showPromptedAt: -1, // version at which the show dialog was last opened by itself
  towardRoom: null, // the room this seat last headed toward ("Head toward" offers it again until reached)
  dialogOpen: false,
};

// ------------------------------------------------------------------ small helpers

function node(tag, content = "", className = "") {
  const n = document.createElement(tag);
  if (content) n.textContent = content;
  if (className) n.className = className;
  return n;
}

let messageTimer = null;
function say(text, kind = "info") {
  const m = $("message");
  m.textContent = text;
  m.className = `message ${kind}`;
  m.hidden = !text;
  clearTimeout(messageTimer);
  if (text) messageTimer = setTimeout(() => (m.hidden = true), 6000);
}

function cardName(id) {
  const names = (state.view && state.view.names) || {};
  return names[id] || id;
}

// A card in a sentence, as the server's news words it, the same for every kind of card: "the Rope
// card", "the Lounge card", "the Mr. Green card" (so that "Mrs. White showed you the Mrs. White
// card" never reads as a person).
function cardPhrase(id) {
  return `the ${cardName(id)} card`;
}

function seatInfo(name) {
  return state.view ? state.view.seats.find((s) => s.seat === name) : null;
}

function seatLabel(name) {
  const s = seatInfo(name);
  if (!s) return name;
  return s.you ? `you (${s.name})` : `${s.name} (${s.player})`;
}

/** A seat as a person reads it: the character's name, or "you". */
function seatName(name, capital = false) {
  const s = seatInfo(name);
  if (!s) return name || "nobody";
  return s.you ? (capital ? "You" : "you") : s.name;
}

const SVG_NS = "http://www.w3.org/2000/svg";
const PIPS = {
  2: [[0.28, 0.28], [0.72, 0.72]],
  3: [[0.25, 0.25], [0.5, 0.5], [0.75, 0.75]],
  4: [[0.28, 0.28], [0.72, 0.28], [0.28, 0.72], [0.72, 0.72]],
  5: [[0.27, 0.27], [0.73, 0.27], [0.5, 0.5], [0.27, 0.73], [0.73, 0.73]],
  6: [[0.28, 0.24], [0.72, 0.24], [0.28, 0.5], [0.72, 0.5], [0.28, 0.76], [0.72, 0.76]],
  1: [[0.5, 0.5]],
};

/** A die face as SVG: pips, or the magnifying glass (R23) when ``glass``. */
function dieFace(face, glass) {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 1 1");
  svg.setAttribute("class", glass ? "die glass" : "die");
  svg.dataset.face = String(face);
  svg.dataset.glass = String(Boolean(glass));
  const add = (tag, attrs) => {
    const n = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
    svg.appendChild(n);
    return n;
  };
  add("rect", { x: 0.04, y: 0.04, width: 0.92, height: 0.92, rx: 0.16, class: "die-body" });
  if (glass) {
    add("circle", { cx: 0.43, cy: 0.43, r: 0.22, class: "glass-lens" });
    add("line", { x1: 0.59, y1: 0.59, x2: 0.82, y2: 0.82, class: "glass-handle" });
  } else {
    for (const [x, y] of PIPS[face] || []) add("circle", { cx: x, cy: y, r: 0.085, class: "pip" });
  }
  const t = document.createElementNS(SVG_NS, "title");
  t.textContent = glass ? "magnifying glass (counts 1)" : String(face);
  svg.appendChild(t);
  return svg;
}

function whereLabel(where) {
  if (where === "envelope") return "envelope";
  if (where === "board") return "on the board";
  if (where === "nobody") return "nobody";
  const s = seatInfo(where);
  return s ? (s.you ? "you" : s.name) : where;
}

function cardChip(id, extra = "") {
  const kind = state.meta.suspects.includes(id) ? "suspect" : state.meta.weapons.includes(id) ? "weapon" : "room";
  const chip = node("span", cardName(id), `card ${kind} ${extra}`.trim());
  chip.dataset.card = id;
  return chip;
}

function describeSuggestion(p) {
  if (!p) return "";
  const who = seatName(p.player, true);
  return `${who} ${seatInfo(p.player) && seatInfo(p.player).you ? "suggest" : "suggests"} ${cardName(p.suspect)} with the ${cardName(p.weapon)} in the ${cardName(p.room)}.`;
}

// ------------------------------------------------------------------ the seat in this tab

function readFragment() {
  const params = new URLSearchParams(location.hash.replace(/^#/, ""));
  const game = params.get("game");
  const token = params.get("token");
  return game && token ? { game, token, invites: [] } : null;
}

function saveSeat(entry) {
  sessionStorage.setItem(STORE_KEY, JSON.stringify(entry));
}

function loadSeat() {
  try {
    const entry = JSON.parse(sessionStorage.getItem(STORE_KEY) || "null");
    return entry && typeof entry.game === "string" && typeof entry.token === "string" ? entry : null;
  } catch {
    return null;
  }
}

function forgetSeat() {
  sessionStorage.removeItem(STORE_KEY);
}

// ------------------------------------------------------------------ new-game form

function buildForm() {
  const rules = $("rules");
  rules.replaceChildren();
  for (const r of state.meta.rules) {
    const o = node("option", RULE_NAMES[r] || r);
    o.value = r;
    rules.appendChild(o);
  }
  rules.addEventListener("change", () => {
    clampPlayers();
    buildSeats();
  });
  $("players").addEventListener("input", buildSeats);
  $("players").addEventListener("change", () => {
    clampPlayers();
    buildSeats();
  });
  $("new-game-form").addEventListener("submit", onCreate);
  clampPlayers();
  buildSeats();
}

function clampPlayers() {
  const [lo, hi] = state.meta.players[$("rules").value];
  const input = $("players");
  input.min = lo;
  input.max = hi;
  const n = Number.parseInt(input.value, 10);
  if (!Number.isFinite(n) || n < lo) input.value = lo;
  else if (n > hi) input.value = hi;
}

function buildSeats() {
  const [lo, hi] = state.meta.players[$("rules").value];
  let n = Number.parseInt($("players").value, 10);
  if (!Number.isFinite(n)) return;
  n = Math.min(Math.max(n, lo), hi);
  const list = $("seat-list");
  const rules = $("rules").value;
  const names = (state.meta.names || {})[rules] || {};
  // a change of rules or of the number of players starts the list afresh: one human, then agents
  const key = `${rules}:${n}`;
  if (list.dataset.key === key && list.children.length === n) return; // (a change event on blur)
  list.dataset.key = key;
  list.replaceChildren();
  for (let i = 0; i < n; i++) {
    const li = node("li");
    const character = state.meta.suspects[i];
    const label = node("label", "", "seat-choice");
    label.appendChild(node("span", "", `dot suspect-${character}`));
    label.appendChild(node("span", names[character] || character, "seat-character"));
    const select = node("select");
    select.dataset.seat = String(i);
    select.name = `seat${i}`;
    for (const spec of ["human", ...state.meta.agents]) {
      const o = node("option", spec === "human" ? "human (a person)" : spec);
      o.value = spec;
      select.appendChild(o);
    }
    select.value = i === 0 ? "human" : state.meta.default_opponent;
    label.appendChild(select);
    li.appendChild(label);
    list.appendChild(li);
  }
}

// The seat of the game this tab shows, when no other person plays in it: starting another game
// ends it on the server (it would otherwise hold one of the server's slots, and of this
// client's, until it timed out). A game with other human seats is left to them.
function soloSeat() {
  const v = state.view;
  if (!state.seat || !v || v.game !== state.seat.game) return null;
  return v.seats.filter((s) => s.player === "human").length === 1 ? state.seat : null;
}

async function onCreate(e) {
  e.preventDefault();
  const previous = soloSeat();
  const seats = [...$("seat-list").querySelectorAll("select")].map((s) => s.value);
  if (!seats.includes("human")) {
    say("At least one seat must be human.", "error");
    return;
  }
  const body = { seats, rules: $("rules").value, notes: $("notes-mode").value };
  const seedText = $("seed").value.trim();
  if (seedText) {
    const seed = Number(seedText);
    if (!Number.isSafeInteger(seed) || seed < 0) {
      say("The seed must be a whole number of 0 or more.", "error");
      return;
    }
    body.seed = seed;
  }
  $("create").disabled = true;
  try {
    await startGame(body, null, previous);
  } finally {
    $("create").disabled = false;
  }
}

/** Create a game and open it in this tab: as seat ``mine`` when it is a human seat, else the
 * first human seat; the other human seats get invite links (with their characters' names). */
async function startGame(body, mine, previous) {
  try {
    const created = await createGame(body);
    const names = Object.keys(created.tokens).sort((a, b) => Number(a.split("_")[1]) - Number(b.split("_")[1]));
    const me = mine && names.includes(mine) ? mine : names[0];
    const characterNames = (state.meta.names || {})[body.rules || "classic"] || {};
    const invites = names
      .filter((seat) => seat !== me)
      .map((seat) => {
        const character = state.meta.suspects[Number(seat.split("_")[1])];
        return { seat, name: characterNames[character] || seat, url: new URL(created.links[seat], location.origin).href };
      });
    const entry = { game: created.game, token: created.tokens[me], invites };
    saveSeat(entry);
    if (previous && previous.game !== created.game) previous.end().catch(() => {}); // best effort
    say("");
    openSeat(entry);
    return true;
  } catch (err) {
    say(`Could not start the game: ${err.message}`, "error");
    return false;
  }
}

async function rematch() {
  const v = state.view;
  if (!v || !v.over) return;
  const button = $("rematch");
  button.disabled = true;
  try {
    const previous = soloSeat();
    await startGame({ seats: v.seats.map((s) => s.player), rules: v.rules }, v.seat, previous);
  } finally {
    button.disabled = false;
  }
}

function showSetup() {
  stopPolling();
  $("game").hidden = true;
  $("setup").hidden = false;
  $("new-game").hidden = true;
  $("back-to-game").hidden = !loadSeat();
  $("status").textContent = "Choose the seats and start a game.";
}

// ------------------------------------------------------------------ a game

function openSeat(entry) {
  stopPolling();
  state.seat = new Seat(entry.game, entry.token);
  state.invites = entry.invites || [];
  state.view = null;
  state.logLength = 0;
  state.showPromptedAt = -1;
  state.towardRoom = null;
  $("log").replaceChildren();
  $("news").replaceChildren();
  $("banner").hidden = true;
  if (!state.board) state.board = new Board($("board"), state.boardData, (action) => act(action));
  $("setup").hidden = true;
  $("game").hidden = false;
  $("new-game").hidden = false;
  renderInvites();
  refresh();
}

function stopPolling() {
  clearTimeout(state.pollTimer);
  state.pollTimer = null;
}

function schedulePoll() {
  stopPolling();
  const v = state.view;
  if ($("game").hidden) return;
  if (v && !v.over && !v.my_turn) state.pollTimer = setTimeout(refresh, v.agent_to_act ? POLL_MS : state.pollMs);
}

async function refresh() {
  const seat = state.seat;
  if (!seat) return;
  try {
    const view = await seat.view(state.logLength);
    if (seat !== state.seat) return;
    if (view === null) {
      // unchanged: wait longer before asking again
      state.pollMs = Math.min(POLL_MAX_MS, state.pollMs * POLL_BACKOFF);
      schedulePoll();
      return;
    }
    state.pollMs = POLL_MS;
    apply(view);
  } catch (err) {
    if (seat !== state.seat) return;
    if (err instanceof ApiError && [401, 403, 404].includes(err.status)) {
      forgetSeat();
      state.seat = null;
      showSetup();
      say(`This game is not available: ${err.message}`, "error");
      return;
    }
    say(`Could not reach the game: ${err.message}; retrying…`, "error");
    stopPolling();
    state.pollTimer = setTimeout(refresh, 1500);
  }
}

async function act(action) {
  const v = state.view;
  if (!v || state.busy || !v.my_turn || v.over) return;
  if (!v.legal.includes(action)) {
    say(`"${action}" is not a legal action now.`, "error");
    return;
  }
  state.busy = true;
  $("game").dataset.busy = "true";
  try {
    apply(await state.seat.act(action, v.version, state.logLength));
  } catch (err) {
    if (err instanceof ApiError && err.status === 409) {
      say(`The game had moved on (${err.message}); the board is up to date again.`, "warn");
      await refresh();
    } else {
      say(`That did not work: ${err.message}`, "error");
    }
  } finally {
    state.busy = false;
    $("game").dataset.busy = "false";
  }
}

function apply(view) {
  const old = state.view;
  if (old && old.game === view.game && view.version < old.version) return; // a late answer
  // the log: entries from log_start on; keep those not seen yet
  const skip = state.logLength - view.log_start;
  if (skip >= 0) {
    appendLog(view.log.slice(skip));
    state.logLength = view.log_length;
  }
  state.view = view;
  render(view);
  announce(old && old.game === view.game ? old : null, view);
  schedulePoll();
  maybePromptShow(view);
}

// ------------------------------------------------------------------ rendering

function render(view) {
  const game = $("game");
  game.dataset.phase = view.phase;
  game.dataset.myTurn = String(view.my_turn);
  game.dataset.version = String(view.version);
  game.dataset.over = String(view.over);
  game.dataset.seat = view.seat;
  state.board.setNames(view.names);
  state.board.update(view);
  state.board.zoom(view, NARROW.matches);
  renderStatus(view);
  renderActions(view);
  renderSeats(view);
  renderHand(view);
  const grid = { game: view.game, seat: view.seat, seats: view.seats.map((s) => ({ seat: s.seat, name: s.name, character: s.character, you: s.you })) };
  renderNotebook($("notebook"), view.notes, view.names, whereLabel, !view.over, grid);
  $("game").dataset.notes = view.notes_mode || "facts";
  renderNews(view);
  renderResult(view);
}

function myRoom(view) {
  const me = view.seats.find((s) => s.you);
  const where = me ? view.public.tokens[me.character] : null;
  return typeof where === "string" ? where : null;
}

function statusText(view) {
  if (view.over) {
    const w = view.winner;
    return w ? `Game over: ${seatInfo(w) && seatInfo(w).you ? "you win" : `${seatName(w)} wins`}.` : "Game over: nobody wins.";
  }
  const mine = view.current === view.seat;
  const whose = mine ? "your turn" : `${seatName(view.current)}'s turn`;
  if (view.phase === "refute" && view.pending_suggestion) {
    const p = view.pending_suggestion;
    if (view.my_turn) return `Turn ${view.turn}, ${whose}: you are asked to refute ${seatName(p.player)}'s suggestion. Show a card.`;
    const refuter = view.acting === view.seat ? "you" : seatName(view.acting);
    return `Turn ${view.turn}, ${whose}: waiting for ${refuter} to answer ${mine ? "your" : `${seatName(p.player)}'s`} suggestion…`;
  }
  if (view.my_turn) return `Turn ${view.turn}: your turn.`;
  return `Turn ${view.turn}: ${whose}; waiting for ${seatName(view.waiting_for || view.acting)}…`;
}

function renderStatus(view) {
  const status = $("status");
  status.classList.toggle("your-turn", view.my_turn);
  status.textContent = statusText(view);
  status.dataset.whose = view.current || "";

  const g = view.legal_groups || {};
  let prompt = "";
  if (view.over) prompt = "";
  else if (!view.my_turn) prompt = view.pending_suggestion ? describeSuggestion(view.pending_suggestion) : "";
  else if (view.phase === "refute")
    prompt = `It is ${seatName(view.current)}'s turn. ${describeSuggestion(view.pending_suggestion)} You are asked to show a card.`;
  else if (g.move || g.enter || g.toward)
    prompt = `You rolled ${view.roll}: click a highlighted square${g.enter ? " or room" : ""}, or head toward a room.`;
  else if (g.suggest) prompt = `You are in the ${cardName(myRoom(view))}: make a suggestion, or end your turn.`;
  else if (g.roll) prompt = `Roll the dice${g.passage ? ", take the secret passage" : ""}${g.stay ? ", or stay and suggest here" : ""}.`;
  else if (g.end) prompt = "You may accuse, or end your turn.";
  $("prompt").textContent = prompt;

  const dice = $("dice");
  dice.replaceChildren();
  if (view.dice && view.dice.length && !view.over) {
    const owner = view.current === view.seat ? "You rolled" : `${seatName(view.current)} rolled`;
    dice.appendChild(node("span", owner, "dice-owner"));
    view.dice.forEach((d, i) => dice.appendChild(dieFace(d, (view.dice_glass || [])[i])));
    if (view.dice.length > 1) dice.appendChild(node("span", `= ${view.roll}`, "dice-total"));
  }
}

function renderActions(view) {
  const g = view.my_turn && !view.over ? view.legal_groups || {} : {};
  const legal = new Set(view.my_turn ? view.legal : []);
  for (const button of $("actions").querySelectorAll("button[data-action]")) {
    button.hidden = !legal.has(button.dataset.action);
  }
  $("open-suggest").hidden = !g.suggest;
  $("open-accuse").hidden = !g.accuse;
  $("open-show").hidden = !g.show;
  const toward = $("toward");
  toward.hidden = !g.toward;
  if (g.toward) renderToward(view, g.toward);
}

// "Head toward": no room chosen at first (Go waits for a choice, so it never walks the token toward
// a room the player did not pick); then the room the seat last headed for, until its token gets there.
function renderToward(view, actions) {
  const select = $("toward-room");
  if (state.towardRoom && myRoom(view) === state.towardRoom) state.towardRoom = null; // arrived
  const wanted = state.towardRoom ? `toward ${state.towardRoom}` : "";
  select.replaceChildren(node("option", "choose a room…"));
  select.firstChild.value = "";
  for (const action of actions) {
    const o = node("option", cardName(action.slice("toward ".length)));
    o.value = action;
    select.appendChild(o);
  }
  select.value = actions.includes(wanted) ? wanted : "";
  $("toward-go").disabled = !select.value;
}

function renderSeats(view) {
  const list = $("seats");
  list.replaceChildren();
  const eliminated = new Set(view.public.eliminated || []);
  for (const s of view.seats) {
    const li = node("li", "", "seat");
    li.dataset.seat = s.seat;
    if (s.you) li.classList.add("you");
    if (s.seat === view.acting) li.classList.add("acting");
    if (eliminated.has(s.seat)) li.classList.add("eliminated");
    if (view.over && view.winner === s.seat) li.classList.add("winner");
    li.appendChild(node("span", "", `dot suspect-${s.character}`));
    li.appendChild(node("span", s.name, "seat-name"));
    const kind = s.you ? "you" : s.player;
    const cards = (view.public.hand_sizes || {})[s.seat];
    li.appendChild(node("span", `${kind}${cards !== undefined ? ` · ${cards} cards` : ""}`, "seat-meta"));
    if (eliminated.has(s.seat)) li.appendChild(node("span", "out", "badge"));
    if (s.seat === view.acting) li.appendChild(node("span", "to act", "badge acting"));
    if (view.over && view.winner === s.seat) li.appendChild(node("span", "winner", "badge winner"));
    list.appendChild(li);
  }
}

function renderHand(view) {
  const hand = $("hand");
  hand.replaceChildren(...view.hand.map((c) => cardChip(c)));
  const seen = new Map();
  for (const { card, by } of view.shown_to_me || []) seen.set(card, by);
  const parts = [...seen].map(([card, by]) => `${cardName(card)} (by ${whereLabel(by)})`);
  for (const { room, card } of view.peeked || []) parts.push(`${cardName(card)} (face down in the ${cardName(room)})`);
  for (const { card, holder } of view.revealed || []) parts.push(`${cardName(card)} (revealed: ${whereLabel(holder || "nobody")})`);
  $("shown").textContent = parts.length ? `Cards you have seen: ${parts.join(", ")}.` : "";
}

function renderResult(view) {
  const box = $("result");
  box.hidden = !view.over;
  if (!view.over || !view.result) return;
  const r = view.result;
  $("result-text").textContent = r.winner ? `Winner: ${seatLabel(r.winner)}` : "Nobody won.";
  $("result-text").dataset.winner = r.winner || "";
  $("result-detail").textContent = resultSentence(r);
  $("envelope").replaceChildren(...r.envelope.map((c) => cardChip(c, "envelope")));
  const body = $("hands").querySelector("tbody");
  body.replaceChildren();
  for (const [seat, cards] of Object.entries(r.hands)) {
    const tr = node("tr");
    tr.dataset.seat = seat;
    tr.appendChild(node("td", seatLabel(seat)));
    const td = node("td", "", "cards");
    td.append(...cards.map((c) => cardChip(c)));
    tr.appendChild(td);
    body.appendChild(tr);
  }
}

/** How the game ended, in a sentence naming the winner's character (or "You"): "Mrs. White wins
 * with a correct accusation after 13 turns." */
function resultSentence(r) {
  const turns = `after ${r.turns} ${r.turns === 1 ? "turn" : "turns"}`;
  if (r.winner) {
    const you = seatInfo(r.winner) && seatInfo(r.winner).you;
    const wins = `${seatName(r.winner, true)} ${you ? "win" : "wins"}`;
    if (r.reason === "accusation") return `${wins} with a correct accusation ${turns}.`;
    if (r.reason === "last_player_standing") return `${wins} as the last player standing ${turns}.`;
    return `${wins} ${turns}.`;
  }
  if (r.reason === "all_eliminated") return `Nobody wins: every player accused wrongly and the murderer escapes ${turns}.`;
  if (r.reason === "max_turns") return `Nobody wins: the turn limit was reached ${turns}.`;
  return `Nobody wins ${turns}.`;
}

function appendLog(entries) {
  if (!entries.length) return;
  const log = $("log");
  const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  for (const line of entries) {
    const li = node("li", line);
    if (line.startsWith("Turn ")) li.className = "turn";
    else if (line.startsWith("Game over")) li.className = "over";
    log.appendChild(li);
  }
  if (atBottom) log.scrollTop = log.scrollHeight;
}

function renderInvites() {
  const box = $("invites");
  const list = $("invite-list");
  list.replaceChildren();
  box.hidden = !state.invites.length;
  for (const { seat, name, url } of state.invites) {
    const li = node("li", "", "invite");
    li.appendChild(node("span", name || seat, "invite-seat"));
    const input = node("input");
    input.type = "text";
    input.readOnly = true;
    input.value = url;
    input.dataset.seat = seat;
    input.addEventListener("focus", () => input.select());
    const copy = node("button", "Copy invite link");
    copy.type = "button";
    copy.dataset.seat = seat;
    copy.addEventListener("click", async () => {
      input.focus();
      input.select();
      try {
        await navigator.clipboard.writeText(url);
        say(`Copied the invite link for ${name || seat}.`);
      } catch {
        say(`The link for ${name || seat} is selected: press Ctrl+C (⌘C) to copy it.`);
      }
    });
    li.append(input, copy);
    list.appendChild(li);
  }
}

// ------------------------------------------------------------------ news, toasts, banners

const CARD_ENTRY_TYPES = new Set(["show", "reveal", "peek", "clue_card"]);

function renderNews(view) {
  const box = $("news");
  box.replaceChildren();
  const turns = (view.news && view.news.turns) || [];
  for (const group of turns) {
    const section = node("section", "", "news-turn");
    if (group.you) section.classList.add("mine");
    section.dataset.turn = String(group.turn ?? "");
    const title = group.turn === null ? group.name : `Turn ${group.turn} · ${group.you ? "your turn" : group.name}`;
    section.appendChild(node("h3", title));
    const list = node("ul");
    for (const e of group.entries) {
      const li = node("li", "", `news-entry ${e.type}`);
      li.dataset.type = e.type;
      if (e.private) li.classList.add("private");
      if (e.type === "accuse") li.classList.add(e.correct ? "correct" : "wrong");
      if (e.type === "roll" && e.dice) {
        const dice = node("span", "", "news-dice");
        e.dice.forEach((d, i) => dice.appendChild(dieFace(d, (e.glass || [])[i])));
        li.appendChild(dice);
      }
      li.appendChild(node("span", e.text, "news-text"));
      if (e.type === "clue_card") {
        const card = node("span", "", "clue-card");
        card.appendChild(node("span", "Clue card", "clue-card-head"));
        if (e.card) card.appendChild(cardChip(e.card));
        else card.appendChild(node("span", e.effect || "", "clue-card-effect"));
        li.appendChild(card);
      } else if (e.card && CARD_ENTRY_TYPES.has(e.type)) {
        li.appendChild(cardChip(e.card, e.private ? "private" : ""));
      }
      list.appendChild(li);
    }
    section.appendChild(list);
    box.appendChild(section);
  }
  if (!turns.length) box.appendChild(node("p", "Nothing yet.", "hint"));
  box.scrollTop = box.scrollHeight;
  renderBanner(view);
}

/** A lasting message for what changes the game for this seat: out of the game, or the end. */
function renderBanner(view) {
  const banner = $("banner");
  const me = view.seat;
  let text = "";
  let kind = "";
  if (view.over) {
    const r = view.result || {};
    if (view.winner === me) text = "You win! Your accusation was right.";
    else if (view.winner) text = `Game over: ${seatName(view.winner)} wins.`;
    else text = "Game over: nobody wins.";
    if (r.envelope) text += ` It was ${r.envelope.map(cardName).join(", ")}.`;
    kind = view.winner === me ? "win" : "over";
  } else if ((view.public.eliminated || []).includes(me)) {
    text = "Your accusation was wrong: you are out of the game. You still show cards when asked.";
    kind = "wrong";
  }
  banner.textContent = text;
  banner.className = `banner ${kind}`;
  banner.dataset.kind = kind;
  banner.hidden = !text;
}

let toastTimer = null;
function toast(text, kind = "info") {
  const t = $("toast");
  t.textContent = text;
  t.className = `toast ${kind}`;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (t.hidden = true), 5000);
}

function flashNotebook(card) {
  const row = $("notebook").querySelector(`tr[data-card="${CSS.escape(card)}"]`);
  if (!row) return;
  row.classList.add("flash");
  row.dataset.flash = "true";
  setTimeout(() => row.classList.remove("flash"), 4000);
}

/** Toast what is new since ``old`` (the previous view of the same game; null on a first load). */
function announce(old, view) {
  if (!old) return;
  const seen = (old.shown_to_me || []).length;
  const shown = (view.shown_to_me || []).slice(seen);
  for (const { card, by } of shown) {
    toast(`${seatName(by, true)} showed you ${cardPhrase(card)}.`, "card");
    flashNotebook(card);
  }
  for (const { room, card } of (view.peeked || []).slice((old.peeked || []).length)) {
    toast(`The card face down in the ${cardName(room)} is ${cardPhrase(card)}.`, "card");
    flashNotebook(card);
  }
  for (const { card, holder } of (view.revealed || []).slice((old.revealed || []).length)) {
    toast(holder ? `${seatName(holder, true)} revealed ${cardPhrase(card)} to everyone.` : `Nobody holds ${cardPhrase(card)}.`, "card");
    flashNotebook(card);
  }
  const wasOut = new Set(old.public.eliminated || []);
  for (const seat of view.public.eliminated || []) {
    if (wasOut.has(seat)) continue;
    if (seat === view.seat) toast("Your accusation was wrong: you are out of the game.", "bad");
    else toast(`${seatName(seat)} accused wrongly and is out of the game.`, "warn");
  }
  if (view.over && !old.over) toast(statusText(view), view.winner === view.seat ? "good" : "info");
}

// ------------------------------------------------------------------ dialogs

async function withDialog(open) {
  if (state.dialogOpen) return;
  state.dialogOpen = true;
  let action = null;
  try {
    action = await open();
  } finally {
    state.dialogOpen = false;
  }
  if (action) await act(action); // its new view may open the next dialog
}

function maybePromptShow(view) {
  const g = view.legal_groups || {};
  if (!view.my_turn || !g.show || state.showPromptedAt === view.version || state.dialogOpen) return;
  state.showPromptedAt = view.version;
  withDialog(() => chooseCard(view, describeSuggestion));
}

// ------------------------------------------------------------------ start

function wire() {
  $("open-suggest").addEventListener("click", () => {
    const v = state.view;
    if (v && v.my_turn) withDialog(() => chooseSuggestion(v, cardName(myRoom(v))));
  });
  $("open-accuse").addEventListener("click", () => {
    const v = state.view;
    if (v && v.my_turn) withDialog(() => chooseAccusation(v));
  });
  $("open-show").addEventListener("click", () => {
    const v = state.view;
    if (v && v.my_turn) withDialog(() => chooseCard(v, describeSuggestion));
  });
  for (const button of $("actions").querySelectorAll("button[data-action]")) {
    button.addEventListener("click", () => act(button.dataset.action));
  }
  $("toward-room").addEventListener("change", () => ($("toward-go").disabled = !$("toward-room").value));
  $("toward-go").addEventListener("click", () => {
    const action = $("toward-room").value;
    if (!action) return;
    state.towardRoom = action.slice("toward ".length);
    act(action);
  });
  $("rematch").addEventListener("click", rematch);
  for (const tab of $("tabs").querySelectorAll("button[data-tab]")) {
    tab.addEventListener("click", () => {
      $("game").dataset.tab = tab.dataset.tab;
      for (const t of $("tabs").querySelectorAll("button")) t.classList.toggle("active", t === tab);
    });
  }
  $("new-game").addEventListener("click", showSetup); // the game is kept until a new one starts (see soloSeat)
  $("back-to-game").addEventListener("click", () => {
    const entry = loadSeat();
    if (entry) openSeat(entry);
  });
}

async function main() {
  wire();
  NARROW.addEventListener("change", () => state.view && state.board && state.board.zoom(state.view, NARROW.matches));
  try {
    [state.meta, state.boardData] = await Promise.all([getMeta(), getBoard()]);
  } catch (err) {
    $("status").textContent = `The server cannot be reached: ${err.message}`;
    return;
  }
  buildForm();
  const fromLink = readFragment();
  if (fromLink) {
    saveSeat(fromLink);
    history.replaceState(null, "", location.pathname); // do not leave the token in the history
  }
  const entry = loadSeat();
  if (entry) openSeat(entry);
  else showSetup();
  window.addEventListener("hashchange", () => {
    const link = readFragment();
    if (!link) return;
    saveSeat(link);
    history.replaceState(null, "", location.pathname);
    openSeat(link);
  });
}

main();
