// The board as SVG, drawn from GET /api/board: rooms, walls, doors, hallway and start squares,
// secret passages, the centre; then, on every view, the tokens, the weapons and the squares and
// rooms the seat may move to (each carrying data-action="move R,C" / "enter ROOM").

const NS = "http://www.w3.org/2000/svg";
const CELL = 30;

export const SUSPECT_COLOURS = {
  scarlet: "#c62828",
  mustard: "#e6b800",
  white: "#fafafa",
  green: "#2e7d32",
  peacock: "#1565c0",
  plum: "#6a1b9a",
};
const LIGHT_TOKENS = new Set(["white", "mustard"]);

const ROOM_COLOURS = {
  kitchen: "#e8d3b0",
  ballroom: "#d9c6e6",
  conservatory: "#cfe3c4",
  dining_room: "#efc9c0",
  billiard_room: "#bfdccf",
  library: "#d8cbb5",
  lounge: "#e9c7d4",
  hall: "#cbd6e6",
  study: "#e3ddb8",
};

const SIDES = {
  N: [-1, 0],
  S: [1, 0],
  W: [0, -1],
  E: [0, 1],
};

function el(tag, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (parent) parent.appendChild(node);
  return node;
}

function text(parent, x, y, content, attrs = {}) {
  const t = el("text", { x, y, ...attrs }, parent);
  t.textContent = content;
  return t;
}

function title(parent, content) {
  el("title", {}, parent).textContent = content;
}

/** Two letters for a suspect token: "Sc", "Mu", "Wh", "Gr", "Pe", "Pl". */
function initials(id) {
  return id.charAt(0).toUpperCase() + id.charAt(1);
}

export class Board {
  /**
   * @param {HTMLElement} container where the <svg> goes
   * @param {object} data GET /api/board
   * @param {(action: string) => void} onAction called with a clicked target's action text
   */
  constructor(container, data, onAction) {
    this.data = data;
    this.onAction = onAction;
    this.names = {};
    this.roomByLetter = {};
    this.roomCells = {};
    for (const room of data.rooms) {
      this.roomByLetter[room.letter] = room;
      this.roomCells[room.id] = [];
    }
    data.grid.forEach((row, r) => {
      [...row].forEach((ch, c) => {
        const room = this.roomByLetter[ch.toUpperCase()];
        if (room && ch !== "X" && ch !== "x") this.roomCells[room.id].push([r, c]);
      });
    });

    const w = data.cols * CELL;
    const h = data.rows * CELL;
    this.svg = el("svg", {
      viewBox: `-6 -6 ${w + 12} ${h + 12}`,
      class: "board-svg",
      role: "img",
      "aria-label": "Clue board",
    });
    el("rect", { x: -6, y: -6, width: w + 12, height: h + 12, rx: 10, class: "board-bg" }, this.svg);
    this.base = el("g", { class: "base" }, this.svg);
    this.labels = el("g", { class: "labels" }, this.svg);
    const defs = el("defs", {}, this.svg);
    for (const [suspect, colour] of Object.entries(SUSPECT_COLOURS)) {
      const m = el("marker", { id: `arrow-${suspect}`, viewBox: "0 0 10 10", refX: 8, refY: 5, markerWidth: 4, markerHeight: 4, orient: "auto-start-reverse" }, defs);
      el("path", { d: "M0 0L10 5L0 10Z", fill: colour, stroke: "#1d1d1d", "stroke-width": 1 }, m);
    }
    this.moves = el("g", { class: "moves" }, this.svg);
    this.targets = el("g", { class: "targets" }, this.svg);
    this.pieces = el("g", { class: "pieces" }, this.svg);
    this.fullViewBox = `-6 -6 ${w + 12} ${h + 12}`;
    this.drawBase();
    container.replaceChildren(this.svg);

    this.svg.addEventListener("click", (e) => {
      const target = e.target.closest("[data-action]");
      if (target && this.svg.contains(target)) this.onAction(target.dataset.action);
    });
    this.svg.addEventListener("keydown", (e) => {
      if (e.key !== "Enter" && e.key !== " ") return;
      const target = e.target.closest("[data-action]");
      if (target) {
        e.preventDefault();
        this.onAction(target.dataset.action);
      }
    });
  }

  cellChar(r, c) {
    const row = this.data.grid[r];
    return row === undefined || c < 0 || c >= row.length ? " " : row[c];
  }

  bbox(room) {
    const [r0, r1] = room.rows;
    const [c0, c1] = room.cols;
    return { x0: c0 * CELL, y0: r0 * CELL, x1: (c1 + 1) * CELL, y1: (r1 + 1) * CELL };
  }

  drawBase() {
    const { grid, doors, starts, center, passages } = this.data;
    const g = this.base;
    const startAt = {};
    for (const [suspect, [r, c]] of Object.entries(starts)) startAt[`${r},${c}`] = suspect;

    // squares
    grid.forEach((row, r) => {
      [...row].forEach((ch, c) => {
        const x = c * CELL;
        const y = r * CELL;
        if (ch === " ") return;
        if (ch === ".") {
          el("rect", { x, y, width: CELL, height: CELL, class: "square" }, g);
        } else if (ch >= "1" && ch <= "6") {
          const suspect = startAt[`${r},${c}`];
          const sq = el("rect", { x, y, width: CELL, height: CELL, class: "start", fill: "#f3e6bd" }, g);
          if (suspect) {
            sq.setAttribute("fill", SUSPECT_COLOURS[suspect]);
            title(sq, `start square: ${suspect}`);
          }
        } else if (ch === "X") {
          el("rect", { x: x - 0.25, y: y - 0.25, width: CELL + 0.5, height: CELL + 0.5, class: "centre" }, g);
        } else {
          const room = this.roomByLetter[ch.toUpperCase()];
          if (!room) return;
          el("rect", { x: x - 0.25, y: y - 0.25, width: CELL + 0.5, height: CELL + 0.5, fill: ROOM_COLOURS[room.id] || "#ddd", class: "room-cell" }, g);
        }
      });
    });

    // walls: every room-square edge that does not face the same room, except its doors
    const doorEdges = new Set(doors.map((d) => `${d.room_square[0]},${d.room_square[1]},${d.side}`));
    let path = "";
    grid.forEach((row, r) => {
      [...row].forEach((ch, c) => {
        const up = ch.toUpperCase();
        if (!this.roomByLetter[up] && up !== "X") return;
        for (const [side, [dr, dc]] of Object.entries(SIDES)) {
          if (this.cellChar(r + dr, c + dc).toUpperCase() === up) continue;
          if (doorEdges.has(`${r},${c},${side}`)) continue;
          const x = c * CELL;
          const y = r * CELL;
          if (side === "N") path += `M${x} ${y}h${CELL}`;
          if (side === "S") path += `M${x} ${y + CELL}h${CELL}`;
          if (side === "W") path += `M${x} ${y}v${CELL}`;
          if (side === "E") path += `M${x + CELL} ${y}v${CELL}`;
        }
      });
    });
    el("path", { d: path, class: "wall" }, g);

    // doors: a bar on the door's edge of the room square
    for (const d of doors) {
      const [r, c] = d.room_square;
      const x = c * CELL;
      const y = r * CELL;
      const t = 5;
      const m = 4;
      const bar = {
        N: { x: x + m, y: y - t / 2, width: CELL - 2 * m, height: t },
        S: { x: x + m, y: y + CELL - t / 2, width: CELL - 2 * m, height: t },
        W: { x: x - t / 2, y: y + m, width: t, height: CELL - 2 * m },
        E: { x: x + CELL - t / 2, y: y + m, width: t, height: CELL - 2 * m },
      }[d.side];
      const door = el("rect", { ...bar, rx: 1.5, class: "door", "data-door": d.room }, g);
      title(door, `door of the ${d.room.replace("_", " ")}`);
    }

    // the centre (the case file; not enterable)
    const [cr0, cr1] = center.rows;
    const [cc0, cc1] = center.cols;
    text(this.labels, ((cc0 + cc1 + 1) / 2) * CELL, ((cr0 + cr1 + 1) / 2) * CELL, "CLUE", { class: "centre-label" });

    // secret passages: a stair triangle in each room's outer corner
    const midX = (this.data.cols * CELL) / 2;
    const midY = (this.data.rows * CELL) / 2;
    this.passageTo = {};
    for (const [a, b] of passages) {
      this.passageTo[a] = b;
      this.passageTo[b] = a;
    }
    for (const room of this.data.rooms) {
      const to = this.passageTo[room.id];
      if (!to) continue;
      const bb = this.bbox(room);
      const left = (bb.x0 + bb.x1) / 2 < midX;
      const top = (bb.y0 + bb.y1) / 2 < midY;
      const cx = left ? bb.x0 : bb.x1;
      const cy = top ? bb.y0 : bb.y1;
      const sx = left ? 1 : -1;
      const sy = top ? 1 : -1;
      const s = CELL * 1.1;
      const mark = el("g", { class: "passage", "data-passage": `${room.id}>${to}` }, g);
      el("path", { d: `M${cx} ${cy}h${sx * s}L${cx} ${cy + sy * s}Z`, class: "passage-mark" }, mark);
      for (let i = 1; i <= 2; i++) {
        const k = (s * i) / 3;
        el("path", { d: `M${cx + sx * k} ${cy}L${cx} ${cy + sy * k}`, class: "passage-step" }, mark);
      }
      title(mark, `secret passage to the ${to.replace("_", " ")}`);
    }

    // room names (filled in once names are known)
    this.roomLabels = {};
    for (const room of this.data.rooms) {
      const bb = this.bbox(room);
      this.roomLabels[room.id] = text(this.labels, (bb.x0 + bb.x1) / 2, bb.y0 + CELL * 0.8, room.id, { class: "room-label" });
    }
  }

  setNames(names) {
    this.names = names || {};
    for (const [id, label] of Object.entries(this.roomLabels)) label.textContent = this.names[id] || id;
  }

  name(id) {
    return this.names[id] || id;
  }

  /** Draw the pieces and the seat's move targets for ``view``. */
  update(view) {
    const pub = view.public;
    this.pieces.replaceChildren();
    this.targets.replaceChildren();
    this.moves.replaceChildren();
    // the last move of each piece within the last round (one turn per seat): an arrow along a
    // shortest way for a walk, straight for a passage or a suggestion
    const recent = (m) => m && m.turn > view.turn - view.num_players;
    const lastMoves = view.last_moves || { tokens: {}, weapons: {} };
    this.movedWeapons = new Set(Object.entries(lastMoves.weapons || {}).filter(([, m]) => recent(m)).map(([w]) => w));
    this.summoned = new Set();
    for (const [suspect, m] of Object.entries(lastMoves.tokens || {})) {
      if (!recent(m) || !m.route || m.route.length < 2) continue;
      if (m.cause === "suggest") this.summoned.add(suspect);
      const points = m.route.map(([r, c]) => `${(c + 0.5) * CELL},${(r + 0.5) * CELL}`).join(" ");
      const line = el("polyline", {
        points,
        class: `last-move cause-${m.cause}`,
        stroke: SUSPECT_COLOURS[suspect] || "#333",
        "marker-end": `url(#arrow-${suspect})`,
        "data-suspect": suspect,
        "data-turn": m.turn,
      }, this.moves);
      title(line, `${this.name(suspect)}: last move (turn ${m.turn})`);
    }
    const actingChar = view.acting ? pub.characters[view.acting] : null;
    const me = view.seats.find((s) => s.you);
    const myChar = me ? me.character : null;

    // weapons, flowed in rows under each room's name
    const inRoom = {};
    for (const [weapon, room] of Object.entries(pub.weapons || {})) (inRoom[room] ||= []).push(weapon);
    for (const room of this.data.rooms) {
      const bb = this.bbox(room);
      const list = inRoom[room.id] || [];
      let x = bb.x0 + 6;
      let y = bb.y0 + CELL * 1.15;
      const rowH = 17;
      const rows = [[]];
      for (const w of list) {
        const label = this.name(w);
        const width = label.length * 5.6 + 10;
        if (x + width > bb.x1 - 6 && rows[rows.length - 1].length) {
          rows.push([]);
          x = bb.x0 + 6;
        }
        rows[rows.length - 1].push({ w, label, width });
        x += width + 4;
      }
      for (const row of rows) {
        const total = row.reduce((a, it) => a + it.width, 0) + 4 * Math.max(row.length - 1, 0);
        let wx = (bb.x0 + bb.x1) / 2 - total / 2;
        for (const it of row) {
          const g = el("g", { class: "weapon", "data-weapon": it.w, "data-room": room.id }, this.pieces);
          if (this.movedWeapons.has(it.w)) g.classList.add("moved");
          el("rect", { x: wx, y, width: it.width, height: rowH - 3, rx: 4 }, g);
          text(g, wx + it.width / 2, y + rowH / 2 + 1, it.label);
          title(g, `${it.label} (in the ${this.name(room.id)})`);
          wx += it.width + 4;
        }
        y += rowH;
      }
    }

    // face-down cards on the board (2023 two-player game)
    for (const roomId of pub.board_card_rooms || []) {
      const room = this.data.rooms.find((r) => r.id === roomId);
      if (!room) continue;
      const bb = this.bbox(room);
      const g = el("g", { class: "board-card", "data-board-card": roomId }, this.pieces);
      el("rect", { x: bb.x1 - CELL * 0.9, y: bb.y1 - CELL * 1.3, width: CELL * 0.6, height: CELL * 0.85, rx: 3 }, g);
      text(g, bb.x1 - CELL * 0.6, bb.y1 - CELL * 0.8, "?");
      title(g, "a face-down card lies in this room");
    }

    // suspect tokens: in a hallway square, or in a row near the bottom of their room
    const occupants = {};
    for (const [suspect, where] of Object.entries(pub.tokens || {})) {
      if (typeof where === "string") (occupants[where] ||= []).push(suspect);
      else this.drawToken(suspect, (where[1] + 0.5) * CELL, (where[0] + 0.5) * CELL, suspect === actingChar, suspect === myChar);
    }
    for (const [roomId, list] of Object.entries(occupants)) {
      const room = this.data.rooms.find((r) => r.id === roomId);
      if (!room) continue;
      const bb = this.bbox(room);
      const step = CELL * 0.9;
      const x0 = (bb.x0 + bb.x1) / 2 - (step * (list.length - 1)) / 2;
      const y = bb.y1 - CELL * 1.0;
      list.forEach((suspect, i) => this.drawToken(suspect, x0 + i * step, y, suspect === actingChar, suspect === myChar, roomId));
    }

    // where this seat may go
    const groups = view.my_turn ? view.legal_groups || {} : {};
    for (const action of groups.enter || []) {
      const roomId = action.slice("enter ".length);
      const g = el("g", { class: "target-room", "data-action": action, tabindex: 0, role: "button" }, this.targets);
      for (const [r, c] of this.roomCells[roomId] || []) el("rect", { x: c * CELL, y: r * CELL, width: CELL, height: CELL }, g);
      title(g, `enter the ${this.name(roomId)}`);
    }
    for (const action of groups.move || []) {
      const [r, c] = action.slice("move ".length).split(",").map(Number);
      const g = el("g", { class: "target", "data-action": action, tabindex: 0, role: "button" }, this.targets);
      // the whole square takes the tap (at least 32 px when zoomed on a phone); the mark is drawn inset
      el("rect", { x: c * CELL, y: r * CELL, width: CELL, height: CELL, class: "hit" }, g);
      el("rect", { x: c * CELL + 2, y: r * CELL + 2, width: CELL - 4, height: CELL - 4, rx: 4, class: "mark" }, g);
      title(g, `move to square ${r},${c}`);
    }
  }

  /** On a narrow screen, zoom onto the squares and rooms the seat may move to (and its token),
   * so that every target is at least ``minPx`` pixels; the whole board otherwise. */
  zoom(view, narrow, minPx = 32) {
    const groups = view.my_turn ? view.legal_groups || {} : {};
    const cells = [];
    for (const a of groups.move || []) cells.push(a.slice("move ".length).split(",").map(Number));
    for (const a of groups.enter || []) for (const rc of this.roomCells[a.slice("enter ".length)] || []) cells.push(rc);
    if (!narrow || !cells.length) {
      this.svg.setAttribute("viewBox", this.fullViewBox);
      this.svg.dataset.zoomed = "false";
      return;
    }
    const me = view.seats.find((s) => s.you);
    const where = me ? view.public.tokens[me.character] : null;
    if (Array.isArray(where)) cells.push(where);
    const rs = cells.map((c) => c[0]);
    const cs = cells.map((c) => c[1]);
    const width = this.svg.parentElement ? this.svg.parentElement.clientWidth || 360 : 360;
    const span = Math.max(6, Math.min(this.data.cols, Math.floor(width / minPx))); // cells across
    const cx = ((Math.min(...cs) + Math.max(...cs) + 1) / 2) * CELL;
    const cy = ((Math.min(...rs) + Math.max(...rs) + 1) / 2) * CELL;
    const need = Math.max((Math.max(...cs) - Math.min(...cs) + 2) * CELL, (Math.max(...rs) - Math.min(...rs) + 2) * CELL);
    const size = Math.min(Math.max(span * CELL, need), Math.max(this.data.cols, this.data.rows) * CELL + 12);
    const x0 = Math.max(-6, Math.min(cx - size / 2, this.data.cols * CELL + 6 - size));
    const y0 = Math.max(-6, Math.min(cy - size / 2, this.data.rows * CELL + 6 - size));
    this.svg.setAttribute("viewBox", `${x0} ${y0} ${size} ${size}`);
    this.svg.dataset.zoomed = "true";
  }

  drawToken(suspect, x, y, acting, mine, room = null) {
    const g = el("g", { class: "token", "data-suspect": suspect }, this.pieces);
    if (room) g.setAttribute("data-room", room);
    if (acting) g.classList.add("acting");
    if (mine) g.classList.add("mine");
    if (this.summoned && this.summoned.has(suspect)) g.classList.add("summoned");
    if (acting || mine) el("circle", { cx: x, cy: y, r: CELL * 0.47, class: "token-ring" }, g);
    el("circle", { cx: x, cy: y, r: CELL * 0.37, fill: SUSPECT_COLOURS[suspect] || "#999", class: "token-disc" }, g);
    text(g, x, y + 1, initials(suspect), { class: LIGHT_TOKENS.has(suspect) ? "token-label dark" : "token-label" });
    title(g, this.name(suspect));
  }
}
