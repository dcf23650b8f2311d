// The three choices made in a <dialog>: a suggestion, an accusation (with a confirmation step)
// and the card to show when refuting. Each returns a Promise of an action text, or null when
// the player cancels. Only legal actions are offered: the options come from the view's legal set.

const $ = (id) => document.getElementById(id);

function fillSelect(select, ids, names, selected) {
  select.replaceChildren();
  for (const id of ids) {
    const option = document.createElement("option");
    option.value = id;
    option.textContent = names[id] || id;
    if (id === selected) option.selected = true;
    select.appendChild(option);
  }
}

function unique(values) {
  return [...new Set(values)];
}

/**
 * Show ``dialog`` until ``finish`` is called; ``wire(finish)`` returns the listeners it added as
 * [element, event, handler] triples (removed afterwards). Escape or closing counts as cancel.
 */
function runDialog(dialog, wire) {
  return new Promise((resolve) => {
    let done = false;
    let listeners = [];
    const onClose = () => finish(null);
    function finish(value) {
      if (done) return;
      done = true;
      for (const [node, event, handler] of listeners) node.removeEventListener(event, handler);
      dialog.removeEventListener("close", onClose);
      if (dialog.open) dialog.close();
      resolve(value);
    }
    listeners = wire(finish);
    for (const [node, event, handler] of listeners) node.addEventListener(event, handler);
    dialog.addEventListener("close", onClose);
    dialog.showModal();
  });
}

function candidateOr(list, candidates) {
  return list.find((id) => candidates.includes(id)) || list[0];
}

/** ``suggest SUSPECT WEAPON`` for the room the seat's token is in. */
export function chooseSuggestion(view, roomName) {
  const legal = view.legal_groups.suggest || [];
  const pairs = legal.map((t) => t.split(" ").slice(1));
  const suspects = unique(pairs.map((p) => p[0]));
  const weapons = unique(pairs.map((p) => p[1]));
  const cands = view.notes ? view.notes.candidates : { suspects: [], weapons: [] };
  fillSelect($("suggest-suspect"), suspects, view.names, candidateOr(suspects, cands.suspects || []));
  fillSelect($("suggest-weapon"), weapons, view.names, candidateOr(weapons, cands.weapons || []));
  $("suggest-room").textContent = roomName;
  return runDialog($("suggest-dialog"), (finish) => [
    [$("suggest-cancel"), "click", () => finish(null)],
    [
      $("suggest-submit"),
      "click",
      () => {
        const action = `suggest ${$("suggest-suspect").value} ${$("suggest-weapon").value}`;
        finish(legal.includes(action) ? action : null);
      },
    ],
  ]);
}

/** ``accuse SUSPECT WEAPON ROOM``, asked twice: choose, then confirm. */
export function chooseAccusation(view) {
  const legal = view.legal_groups.accuse || [];
  const triples = legal.map((t) => t.split(" ").slice(1));
  const suspects = unique(triples.map((p) => p[0]));
  const weapons = unique(triples.map((p) => p[1]));
  const rooms = unique(triples.map((p) => p[2]));
  const notes = view.notes || { candidates: {}, solved: null };
  const solved = notes.solved || [];
  const c = notes.candidates || {};
  fillSelect($("accuse-suspect"), suspects, view.names, solved[0] || candidateOr(suspects, c.suspects || []));
  fillSelect($("accuse-weapon"), weapons, view.names, solved[1] || candidateOr(weapons, c.weapons || []));
  fillSelect($("accuse-room"), rooms, view.names, solved[2] || candidateOr(rooms, c.rooms || []));
  const choose = $("accuse-choose");
  const confirm = $("accuse-confirm");
  choose.hidden = false;
  confirm.hidden = true;
  const chosen = () => `accuse ${$("accuse-suspect").value} ${$("accuse-weapon").value} ${$("accuse-room").value}`;
  return runDialog($("accuse-dialog"), (finish) => [
    [$("accuse-cancel"), "click", () => finish(null)],
    [$("accuse-confirm-cancel"), "click", () => finish(null)],
    [
      $("accuse-next"),
      "click",
      () => {
        const n = view.names;
        const [s, w, r] = chosen().split(" ").slice(1);
        $("accuse-question").textContent =
          `Accuse ${n[s] || s} with the ${n[w] || w} in the ${n[r] || r}? ` +
          "If any of the three is wrong you are out of the game.";
        choose.hidden = true;
        confirm.hidden = false;
        $("accuse-back").focus();
      },
    ],
    [
      $("accuse-back"),
      "click",
      () => {
        confirm.hidden = true;
        choose.hidden = false;
      },
    ],
    [
      $("accuse-submit"),
      "click",
      () => {
        const action = chosen();
        finish(legal.includes(action) ? action : null);
      },
    ],
  ]);
}

/** ``show CARD`` when refuting: one of the legal cards, the refute hint preselected. */
export function chooseCard(view, describe) {
  const legal = view.legal_groups.show || [];
  const box = $("show-cards");
  box.replaceChildren();
  const preselected = view.refute_hint && legal.includes(view.refute_hint) ? view.refute_hint : legal[0];
  for (const action of legal) {
    const card = action.slice("show ".length);
    const label = document.createElement("label");
    label.className = "choice";
    const input = document.createElement("input");
    input.type = "radio";
    input.name = "show-card";
    input.value = action;
    input.dataset.card = card;
    input.checked = action === preselected;
    label.append(input, document.createTextNode(` ${view.names[card] || card}`));
    box.appendChild(label);
  }
  $("show-question").textContent = describe(view.pending_suggestion);
  if (view.refute_hint) {
    const card = view.refute_hint.slice("show ".length);
    const name = view.names[card] || card;
    $("show-hint").textContent = `You showed the ${name} card to this player before: showing it again tells them nothing new.`;
  } else {
    $("show-hint").textContent = "";
  }
  return runDialog($("show-dialog"), (finish) => [
    [$("show-later"), "click", () => finish(null)],
    [
      $("show-submit"),
      "click",
      () => {
        const checked = box.querySelector("input:checked");
        finish(checked ? checked.value : null);
      },
    ],
  ]);
}
