// zkview's barrier and queue panels (zkview.js draws the others and calls
// these). Who is inside a barrier and who waits, a queue's order and its
// claims, are the recipes' own readings (barrier.Inspect, queue.Inspect):
// the page shows what the members and consumers decide.
"use strict";

// barrier draws a double barrier's N and its members, inside or waiting,
// or a simple barrier set and the sessions waiting for its removal.
function barrier(b) {
  if (!b.exists) return `<div class="empty">${esc(b.path)} does not exist: no barrier set, nobody has entered</div>`;
  if (!b.count && !b.members.length) {
    const n = b.waiters.length;
    return `<div class="summary" data-set="yes">set: <b>${n} waiting</b> for it to be removed</div>` +
      (n ? `<div class="arrow">each watches ${esc(b.path)} alone; its removal wakes them all at once</div>` : "") + b.waiters.map(card).join("");
  }
  const inside = b.members.filter((m) => m.role === "inside");
  const waiting = b.members.filter((m) => m.role === "waiting");
  let html = b.round ? opened(b, inside.length) : counting(b, waiting.length);
  inside.forEach((m) => { html += card(m); });
  if (waiting.length && b.round) html += `<div class="arrow" data-after="round">↓ came during the round: ${waiting.length} waiting for it to end before their own</div>`;
  waiting.forEach((m) => {
    const why = m.watches.includes("ready") ? "watches ready alone" : m.watches.length ? `watches ${m.watches.join(", ")}` : "";
    html += card(Object.assign({}, m, { role: "waiting" })) + (why && !b.round ? `<div class="arrow watch">↑ ${esc(m.name)} ${esc(why)}</div>` : "");
  });
  return html;
}

// counting is the count before the barrier opens: one box per member of
// the N, filled for each one in.
function counting(b, k) {
  const boxes = Array.from({ length: Math.max(b.count, k) }, (_, i) => `<i class="${i < k ? "used" : "free"}"></i>`).join("");
  return `<div class="summary leases" data-in="${k}" data-count="${b.count}"><span class="boxes">${boxes}</span> <b>${k} of ${b.count}</b> in: ${k ? `each waits until ${b.count} are in at once` : "nobody waits"}</div>`;
}

// opened is an open round: its members are past the barrier, at their
// work or waiting for each other to leave.
function opened(b, k) {
  return `<div class="summary" data-in="${k}" data-count="${b.count}"><b>open</b>: ${k} inside (N=${b.count}); none leaves before all still alive have finished</div>`;
}

// maxItems bounds the items listed, so that a long queue fits a projector.
const maxItems = 10;

// queuePanel draws a queue: the last item taken, the items in the order
// of takes with their claims, and the handles on it.
function queuePanel(q) {
  if (!q.exists) return `<div class="empty">${esc(q.path)} does not exist yet: nothing put</div>`;
  let html = lastTaken(q.last);
  if (!q.items.length) html += `<div class="empty">empty: a take waits here</div>`;
  else {
    const rows = q.items.slice(0, maxItems).map((it, i) =>
      `<tr data-item="${esc(it.name)}" data-value="${esc(it.value)}"${it.claimedBy ? ` data-claimed="${esc(it.claimedBy)}" class="claimed"` : ""}>` +
      `<td>${i + 1}</td><td><b>${esc(it.value)}</b></td><td>${it.priority}</td><td title="znode ${esc(it.name)}">…${String(it.seq).padStart(10, "0").slice(-4)}</td>` +
      `<td>${it.claimedBy ? `claimed by ${esc(it.claimedBy)}` : ""}</td></tr>`);
    const more = q.total > maxItems ? `<tr><td colspan="5" class="empty">and ${q.total - maxItems} more</td></tr>` : "";
    html += `<table class="items"><tr><th>#</th><th>item</th><th>priority</th><th>seq</th><th></th></tr>${rows.join("")}${more}</table>`;
  }
  const handles = q.handles.length ? q.handles.map(handle).join("") : `<div class="empty">none open</div>`;
  return html + `<div class="gatehead">handles (producers and consumers), each by its session:</div><div class="handles">${handles}</div>`;
}

// handle is a handle's card and, for a consumer that found every item
// claimed, whose claim it waits to end (the servers show it watching it).
function handle(h) {
  return `<div class="handle">${card(h)}${h.waits ? `<div class="arrow" data-waits="${esc(h.waits)}">↑ waits for the claim on <b>${esc(h.waits)}</b> to end</div>` : ""}</div>`;
}

// lastTaken says which item was taken last, how, and by whom.
function lastTaken(t) {
  if (!t) return `<div class="summary last empty">nothing taken since zkview started</div>`;
  const by = t.by ? ` by <code>${esc(t.by)}</code>` : "";
  const how = {
    taken: `taken${by} <small>(deleted at once: at-most-once)</small>`,
    claimed: `claimed${by} <small>(at-least-once: back if it dies before its Ack)</small>`,
    acknowledged: `acknowledged${by} <small>(gone for good)</small>`,
  }[t.how] || esc(t.how) + by;
  return `<div class="summary last" data-last="${esc(t.value)}" data-how="${esc(t.how)}">last: <b>${esc(t.value)}</b> ${how} <small>at ${clock(t.at)}</small></div>`;
}
