// The seat's detective notebook: one table per kind of card (card, status, how it is known);
// the cards that may still be in the envelope are highlighted.

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

/**
 * @param {HTMLElement} container
 * @param {object} notes view.notes
 * @param {object} names card id -> display name
 * @param {(where: string) => string} whereLabel "player_2" -> "Mrs. White"
 * @param {boolean} playing whether the game is still on (else no advice to accuse)
 */
export function renderNotebook(container, notes, names, whereLabel, playing = true) {
  container.replaceChildren();
  if (!notes) return;
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
    head.append(cell("th", "Card"), cell("th", "Where"), cell("th", "How"));
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
      let where = row.where === null ? "?" : whereLabel(row.where);
      if (row.envelope_p !== null && row.envelope_p !== undefined && row.where === null) {
        where = `${Math.round(row.envelope_p * 100)}% envelope`;
      }
      const how = (row.how || "").replace(/player_\d+/g, (seat) => whereLabel(seat)); // names, not seats
      tr.append(cell("td", names[row.card] || row.card, "card-name"), cell("td", where), cell("td", how, "how"));
      body.appendChild(tr);
    }
    table.appendChild(body);
    container.appendChild(table);
  }
}
