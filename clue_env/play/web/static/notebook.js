// The seat's detective notebook: one table per kind of card (the card, a grid of players × the
// envelope with ✓ holds / ✗ cannot hold / ? unknown from the seat's proved facts, the players this
// seat showed the card to; how it is known on hover, and as a column on a wide screen); the cards
// that may still be in the envelope are highlighted. Players head their columns by the two letters
// their tokens carry on the board, in their colour, with the full name on hover, so that a grid of
// six players fits beside the board at 1280 px. A click on a grid cell cycles the player's own mark (none → ✓ → ✗ → ? → none),
// drawn apart from the proved facts and kept in this browser's localStorage only (per game and
// seat; never sent to the server).

import { SUSPECT_COLOURS } from "./board.js";

const KINDS = [
  ["suspects", "Suspects"],
  ["weapons", "Weapons"],
  ["rooms", "Rooms"],
];

function cell(tag, content, className) {
  const node = document.createElement(tag);
  node.textContent = content;
  if (className) node.className = className;
  return node;
}

const FACT = { holds: "✓", cannot: "✗", unknown: "?" };
const MARKS = ["", "✓", "✗", "?"];

function marksKey(game, seat) {
  return `clue-marks:${game}:${seat}`;
}

function loadMarks(game, seat) {
  try {
    const raw = JSON.parse(localStorage.getItem(marksKey(game, seat)) || "{}");
    return raw && typeof raw === "object" ? raw : {};
  } catch {
    return {};
  }
}

function saveMarks(game, seat, marks) {
  try {
    localStorage.setItem(marksKey(game, seat), JSON.stringify(marks));
  } catch {
    // storage full or off: the marks last until the page is left
  }
}

function drawCell(td, fact, mark, chance = "") {
  td.replaceChildren();
  td.dataset.fact = fact;
  td.dataset.mark = mark || "";
  // an envelope chance (deduce mode) stands in for the bare "?"
  td.appendChild(chance ? cell("span", chance, "fact chance") : cell("span", FACT[fact] || "?", `fact ${fact}`));
  if (mark) td.appendChild(cell("span", mark, "mark"));
}

/** The figure of an envelope probability: as counted when exact, whole percents when estimated. */
function figure(p, deduce) {
  if (deduce && deduce.exact) return `${(p * 100).toFixed(1)}%`;
  return `${Math.round(p * 100)}%`;
}

/**
 * @param {HTMLElement} container
 * @param {object} notes view.notes
 * @param {object} names card id -> display name
 * @param {(where: string) => string} whereLabel "player_2" -> "Mrs. White"
 * @param {boolean} playing whether the game is still on (else no advice to accuse)
 * @param {object} grid {game, seat, seats: [{seat, name}]}: the columns and where the marks live
 */
export function renderNotebook(container, notes, names, whereLabel, playing = true, grid = null) {
  container.replaceChildren();
  if (!notes) return;
  container.dataset.mode = notes.mode || "";
  if (notes.mode === "off") return;
  const seats = (grid && grid.seats) || [];
  const marks = grid ? loadMarks(grid.game, grid.seat) : {};
  if (notes.deduce) {
    const how = notes.deduce.exact
      ? "Envelope chances counted exactly."
      : `Envelope chances estimated (rounded) from ${notes.deduce.samples} sampled deals.`;
    container.appendChild(cell("p", how, "hint deduce-note"));
  }
  const solved = new Set(notes.solved || []);
  if (notes.solved) {
    const then = playing ? " You may accuse." : "";
    const p = cell("p", `Solved: ${notes.solved.map((c) => names[c] || c).join(", ")}.${then}`, "solved-banner");
    container.appendChild(p);
  }
  for (const [kind, heading] of KINDS) {
    const candidates = new Set((notes.candidates || {})[kind] || []);
    const table = document.createElement("table");
    table.className = "notes";
    table.dataset.kind = kind;
    const caption = cell("caption", `${heading} (${candidates.size} possible)`);
    table.appendChild(caption);
    const head = document.createElement("tr");
    head.append(cell("th", "Card"));
    for (const s of seats) {
      const th = cell("th", s.character ? s.character.charAt(0).toUpperCase() + s.character.charAt(1) : s.name, "seat-col");
      th.title = s.you ? `${s.name} (you)` : s.name;
      th.dataset.seat = s.seat;
      if (s.character) th.style.borderBottom = `3px solid ${SUSPECT_COLOURS[s.character] || "#999"}`;
      if (s.you) th.classList.add("you");
      head.appendChild(th);
    }
    const env = cell("th", "Env.", "seat-col");
    env.title = "The envelope (in deduce mode: its chance of holding the card)";
    const shownHead = cell("th", "Shown to", "shown-to");
    shownHead.title = "The players you showed this card to";
    head.append(env, shownHead, cell("th", "How", "how"));
    const thead = document.createElement("thead");
    thead.appendChild(head);
    table.appendChild(thead);
    const body = document.createElement("tbody");
    for (const row of notes.rows.filter((r) => r.kind === kind)) {
      const tr = document.createElement("tr");
      tr.dataset.card = row.card;
      if (candidates.has(row.card)) tr.classList.add("candidate");
      if (solved.has(row.card) || row.where === "envelope") tr.classList.add("solved");
      if (row.where) tr.classList.add("known");
      const chance = row.envelope_p !== null && row.envelope_p !== undefined && row.where === null;
      const how = (row.how || "").replace(/player_\d+/g, (seat) => whereLabel(seat)); // names, not seats
      const name = cell("td", names[row.card] || row.card, "card-name");
      if (how) name.title = how;
      tr.append(name);
      const columns = seats.map((s, i) => [s.seat, (row.seats || [])[i] || "unknown"]);
      columns.push(["envelope", row.envelope || "unknown"]);
      for (const [col, fact] of columns) {
        const td = document.createElement("td");
        td.className = "grid-cell";
        td.dataset.col = col;
        const key = `${row.card}|${col}`;
        const odds = col === "envelope" && chance ? figure(row.envelope_p, notes.deduce) : "";
        if (odds) td.dataset.chance = String(row.envelope_p);
        drawCell(td, fact, marks[key], odds);
        td.title = "Click to cycle your own mark";
        td.addEventListener("click", () => {
          const next = MARKS[(MARKS.indexOf(marks[key] || "") + 1) % MARKS.length];
          if (next) marks[key] = next;
          else delete marks[key];
          if (grid) saveMarks(grid.game, grid.seat, marks);
          drawCell(td, fact, next, odds);
        });
        tr.appendChild(td);
      }
      const shownTo = (row.shown_to || []).map((s) => whereLabel(s)).join(", ");
      tr.append(cell("td", shownTo, "shown-to"), cell("td", how, "how"));
      body.appendChild(tr);
    }
    table.appendChild(body);
    container.appendChild(table);
  }
}
