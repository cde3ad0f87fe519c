// zkview's page: it takes each Board the server streams (Server-Sent
// Events) and draws it whole. Every candidate, contender and member is an
// element with data-name and data-role (and a candidate's card data-life);
// every server one with data-server and data-mode, so that scripts and
// tests can read the page. Between Boards, a timer counts down the
// sessions of candidates that the servers no longer hear from.
"use strict";

const palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22"];
// zkviewLatencies holds, for each Board drawn that a ZooKeeper notification
// caused, the milliseconds from that notification reaching zkview to the
// page drawn: the figure the page is measured by.
window.zkviewLatencies = [];
window.zkviewVersion = 0;
let lastKeys = {};
// skew is zkview's clock minus the page's: countdowns run on zkview's.
let skew = 0;
// rawOpen keeps the out file's raw lines unfolded across redraws once
// someone opens them.
let rawOpen = false;

const $ = (id) => document.getElementById(id);
function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}
function now() { return performance.timeOrigin + performance.now(); }
function clock(ms) { return new Date(ms).toLocaleTimeString([], { hour12: false }) + "." + String(Math.floor(ms % 1000)).padStart(3, "0"); }
function secs(ms) { return ms < 1000 ? Math.round(ms) + " ms" : (ms / 1000).toFixed(2) + " s"; }

// epoch is a leader's epoch (the zxid that created its znode) as
// ZooKeeper's epoch and the transaction's counter: 4294967299 is 1:3. The
// whole number, which its lines carry, is on hover.
function epoch(e) { return Math.floor(e / 4294967296) + ":" + (e % 4294967296); }
function epochTitle(e) {
  return `epoch=${e} on its lines: the zxid that created its znode, 0x${e.toString(16)}: transaction ${e % 4294967296} of ZooKeeper's epoch ${Math.floor(e / 4294967296)}`;
}
// short is a server's address without a local host.
function short(addr) { return String(addr || "").replace(/^(127\.0\.0\.1|localhost|\[::1\])(?=:)/, ""); }

// show fills a panel, or hides it when its znode is missing and no flag
// named it.
function show(id, panel, title, body) {
  const el = $(id);
  if (!panel || (!panel.exists && !panel.named && !panel.err)) { el.hidden = true; return; }
  el.hidden = false;
  let html = `<h2>${title} <code>${esc(panel.path)}</code></h2>`;
  if (panel.err) html += `<div class="err">cannot read it: ${esc(panel.err)}</div>`;
  el.innerHTML = html + body;
}

function line(e, what) {
  if (!e.exists) return `<div class="empty">${esc(e.path)} does not exist yet</div>`;
  if (e.candidates.length === 0) return `<div class="empty">nobody in line: nobody ${what === "lock" ? "holds the lock" : "leads"}</div>`;
  let html = `<div class="parent">${esc(e.path)}</div>`;
  e.candidates.forEach((c, i) => {
    if (i > 0) html += arrow(e, c, i);
    html += card(c);
  });
  return html;
}

function arrow(e, c, i) {
  if (c.watches.includes("*")) return `<div class="arrow herd">⇑ watches all of ${esc(e.path)} (the herd: every change wakes it)</div>`;
  if (c.seen !== "connected") return `<div class="arrow">⇡ watches: cannot tell (${esc(c.seen)})</div>`;
  const prev = e.candidates[i - 1];
  const target = c.watches.map((w) => e.candidates.find((x) => x.znode === w)).find((x) => x);
  if (target) return `<div class="arrow">↑ ${esc(c.name)} watches ${target === prev ? "" : "(not its predecessor) "}${esc(target.name)}</div>`;
  return `<div class="arrow">⇡ watches ${esc(c.watches.join(", ") || "nothing yet")}</div>`;
}

// seq is a sequential znode's number, without the protected prefix that
// finds a lost create (the whole name is on hover).
function seq(znode) {
  const m = /(\d{10})$/.exec(znode || "");
  return m ? `<span title="znode ${esc(znode)}">…${m[1]}</span>` : "";
}

// card is one candidate: its name and role, its place and epoch, where its
// session is connected (its id on hover), and, when the servers no longer
// hear from it, why, and its session counting down to its expiry.
function card(c) {
  const life = c.life || "connected";
  const paused = life === "silent" || life === "cut off";
  const state = paused ? " · paused" : "";
  const meta = [seq(c.znode)];
  if (c.role !== "waiting" && c.epoch) meta.push(`<span title="${esc(epochTitle(c.epoch))}">epoch ${epoch(c.epoch)}</span>`);
  meta.push(where(c));
  return `<div class="cand" data-name="${esc(c.name)}" data-role="${esc(c.role)}"${c.mode ? ` data-mode="${esc(c.mode)}"` : ""} data-life="${esc(life)}">` +
    `<span class="role">${esc(c.role)}${state}</span><div class="name">${c.mode && c.role !== "gate" ? `<span class="mode" data-mode="${esc(c.mode)}">${esc(modes[c.mode] || c.mode)}</span> ` : ""}${esc(c.name)}</div>` +
    `<div class="meta">${meta.filter((m) => m).join(" · ")}</div>${revoke(c)}${countdown(c)}</div>`;
}

// revoke is a revoke request on a lock holder: a mark on its znode, which
// it watches. A --revocable holder lets go; another logs it and holds on,
// and the request stays on its card until it lets go.
function revoke(c) {
  if (!c.revoke) return "";
  const by = c.revoke.by ? ` by ${esc(c.revoke.by)}` : "";
  return `<div class="revoke" data-revoke="${esc(c.revoke.by)}" title="zklock revoke marked its znode; a --revocable holder stops CMD (SIGTERM, then SIGKILL after --grace) and lets go; another holds on">asked to let go${by}</div>`;
}

function where(c) {
  const session = `session ${esc(c.session)}`;
  switch (c.life) {
    case "connected": return `<span title="${session} on ${esc(c.server)}">on ${esc(short(c.server))}</span>`;
    case "silent": return `<span class="paused" title="${session}: connected, but its pings stopped: its process is stopped (kill -STOP, Ctrl-Z) or cut off">not heard from for <span class="age" data-heard="${c.heard}">${age(c.heard)}</span></span>`;
    case "cut off": return `<span class="paused" title="${session} on ${esc(c.server)}, which does not answer: paused until it reaches another server">its server ${esc(short(c.server))} does not answer</span>`;
    case "gone": return `<span class="gone" title="${session}: no server holds a connection for it: its process died, or it is moving to another server">process gone (not connected)</span>`;
    default: return `<span class="gone" title="${session}">${esc(c.seen)}</span>`;
  }
}

function countdown(c) {
  if (!c.timeout || c.life === "connected") return "";
  const at = c.heard + c.timeout;
  return `<div class="countdown" data-expires="${at}" title="a server last heard from it at ${clock(c.heard)}; its session timeout is ${secs(c.timeout)}">${left(at)}</div>`;
}
function left(at) {
  const ms = at - (now() + skew);
  return ms > 0 ? `session expires in ${(ms / 1000).toFixed(1)} s` : "session expires now, at the servers' next tick";
}
function age(heard) { return ((now() + skew - heard) / 1000).toFixed(1) + " s"; }

// tick moves every countdown on, between Boards.
function tick() {
  document.querySelectorAll(".countdown[data-expires]").forEach((el) => { el.textContent = left(+el.dataset.expires); });
  document.querySelectorAll(".age[data-heard]").forEach((el) => { el.textContent = age(+el.dataset.heard); });
}

// lock draws a lock's path: readers and writers in one line, or a
// semaphore's leases and its gate. Who holds and whom each waiter waits
// for are the lock's own rules (zkview asks recipes/lock), so the arrows
// say what the contenders decide; where the servers show a contender
// watching another znode, the arrow says so too.
function lock(e) {
  if (!e.exists) return `<div class="empty">${esc(e.path)} does not exist yet</div>`;
  const holders = e.candidates.filter((c) => c.role === "holder");
  let html = e.leases ? leases(e, holders.length) : held(holders);
  e.candidates.forEach((c, i) => {
    if (i > 0) html += waits(e, c);
    html += card(c);
  });
  if (e.leases) html += gate(e);
  return html;
}

const modes = { read: "reader", write: "writer", lease: "lease" };

// held says who holds a read-write lock, in one line a room can read.
function held(holders) {
  if (!holders.length) return `<div class="summary empty">nobody holds the lock</div>`;
  const readers = holders.filter((c) => c.mode === "read").length;
  const what = readers > 1 ? `${readers} readers, sharing` : readers ? "a reader; more may join it" : "a writer, alone";
  return `<div class="summary">held by <b>${holders.map((c) => esc(c.name)).join(", ")}</b>: ${what}</div>`;
}

// leases shows how many of a semaphore's N leases are in use, one box each.
function leases(e, used) {
  const boxes = Array.from({ length: e.leases }, (_, i) => `<i class="${i < used ? "used" : "free"}"></i>`).join("");
  return `<div class="summary leases" data-used="${used}" data-leases="${e.leases}"><span class="boxes">${boxes}</span> <b>${used} of ${e.leases}</b> leases in use</div>`;
}

// waits is the arrow above a contender: whom it waits for, by the rule of
// its kind, or that it holds beside the ones ahead.
function waits(e, c) {
  if (c.role === "holder") return `<div class="arrow beside">= holds beside the ones above${c.mode === "read" ? " (readers share)" : ""}</div>`;
  const target = e.candidates.find((x) => x.znode === c.waits) || (e.gate || []).find((x) => x.znode === c.waits);
  const whom = target ? esc(target.name) : esc(c.waits || "?");
  const why = c.mode === "read" ? "the nearest writer ahead" : c.mode === "lease" ? "every lease is taken" : "the one just ahead";
  let html = `<div class="arrow" data-waiter="${esc(c.name)}" data-waits="${target ? esc(target.name) : ""}">↑ ${esc(c.name)} waits for <b>${whom}</b> <small>(${why})</small>`;
  if (c.watches.includes("*")) html += ` <span class="herd">but watches all of ${esc(e.path)}: the herd</span>`;
  else if (c.seen === "connected" && c.watches.length && !c.watches.includes(c.waits)) html += ` <span class="herd">but the servers show it watching ${esc(c.watches.join(", "))}</span>`;
  return html + `</div>`;
}

// gate is a semaphore's gate: its holder waits for a lease to go, the
// others wait behind it, each watching the one just ahead.
function gate(e) {
  if (!e.gate || !e.gate.length) return `<div class="gate"><div class="gatehead">gate: nobody waits for a lease</div></div>`;
  let html = `<div class="gate"><div class="gatehead">gate <code>${esc(e.path)}/gate</code>: waiting for a lease</div>`;
  e.gate.forEach((c, i) => {
    if (i === 0) html += `<div class="arrow">${esc(c.name)} holds the gate: takes a lease as soon as one goes, watching the leases</div>`;
    else html += waits({ candidates: e.gate, path: e.path + "/gate" }, c);
    html += card(Object.assign({}, c, { role: i === 0 ? "gate" : "waiting", mode: "" }));
  });
  return html + `</div>`;
}

function single(e) {
  const holder = e.candidates.find((c) => c.role === "leader");
  let html = holder ? card(holder) : `<div class="empty">nobody holds ${esc(e.path)}: nobody leads</div>`;
  const waiting = e.candidates.filter((c) => c.role === "waiting");
  if (waiting.length) html += `<div class="arrow herd">⇑ ${waiting.length} waiting, each watching ${esc(e.path)}: all wake when it goes</div>`;
  return html + waiting.map(card).join("");
}

function group(g) {
  if (!g.exists) return `<div class="empty">no such group</div>`;
  if (!g.members.length) return `<div class="empty">no members</div>`;
  return `<div class="members">` + g.members.map((m) => `<span data-name="${esc(m)}" data-role="member">${esc(m)}</span>`).join("") + `</div>`;
}

function config(c) {
  if (!c.keys.length) return `<div class="empty">no keys</div>`;
  const seen = {};
  const rows = c.keys.map((k) => {
    const was = lastKeys[k.name];
    seen[k.name] = k.version;
    const flash = was !== undefined && was !== k.version ? ` class="flash"` : "";
    return `<tr${flash} data-key="${esc(k.name)}" data-version="${k.version}"><td>${esc(k.name)}</td><td>${esc(k.value)}</td><td>${k.version}</td></tr>`;
  });
  lastKeys = seen;
  return `<table><tr><th>key</th><th>value</th><th>version</th></tr>${rows.join("")}</table>`;
}

function sequences(s) {
  const leader = s.leader ? `persistence leader: <b data-name="${esc(s.leader)}" data-role="leader">${esc(s.leader)}</b>` : `<span class="err">no persistence leader: workers stop at the limit</span>`;
  if (!s.list.length) return `<div>${leader}</div><div class="empty">no sequences</div>`;
  const rows = s.list.map((q) => `<tr data-sequence="${esc(q.name)}" data-next="${q.next}"><td>${esc(q.name)}</td><td>${q.next}</td><td>${q.limit}</td></tr>`);
  return `<div>${leader}</div><table><tr><th>sequence</th><th>next</th><th>limit</th></tr>${rows.join("")}</table>`;
}

function servers(list) {
  if (!list.length) return `<span class="empty">servers not asked yet</span>`;
  return list.map((s) => `<span class="server" data-server="${esc(s.addr)}" data-mode="${esc(s.mode)}" title="ZooKeeper server ${esc(s.addr)}: ${esc(s.mode)}` +
    (s.mode === "down" ? ", or not answering" : `, ${s.connections} client connections`) + `">${esc(short(s.addr))} <span class="mode">${esc(s.mode)}</span></span>`).join("");
}

function outPanel(out) {
  if (!out.exists) return `<div class="empty">${esc(out.path)} does not exist yet: no speaker has spoken</div>`;
  if (!out.lines.length) return `<div class="empty">empty: no speaker has spoken yet</div>`;
  const lines = out.lines.map((l) => `<div style="color:${colour(out, l.name)}">${esc(l.text)}</div>`).join("");
  return strip(out, $("out").clientWidth - 24) +
    `<details class="raw"${rawOpen ? " open" : ""}><summary>the file's last ${out.lines.length} lines</summary><div id="outlines">${lines}</div></details>`;
}

function events(log) {
  $("events").innerHTML = log.slice().reverse().map((e) =>
    `<li data-kind="${esc(e.kind)}"><time>${clock(e.at)}</time>${esc(e.text)}</li>`).join("");
}

function draw(b) {
  show("election", b.election, "Election", b.election ? line(b.election, "election") : "");
  show("single", b.single, "Single-file election", b.single ? single(b.single) : "");
  show("lock", b.lock, b.lock?.leases ? `Semaphore <small>${b.lock.leases} leases</small>` : "Lock", b.lock ? lock(b.lock) : "");
  show("barrier", b.barrier, b.barrier?.count ? `Double barrier <small>N=${b.barrier.count}</small>` : "Barrier", b.barrier ? barrier(b.barrier) : "");
  show("queue", b.queue, "Queue", b.queue ? queuePanel(b.queue) : "");
  show("group", b.group, "Group", b.group ? group(b.group) : "");
  show("config", b.config, "Configuration", b.config ? config(b.config) : "");
  show("sequences", b.sequences, "Sequences", b.sequences ? sequences(b.sequences) : "");
  const out = $("out");
  if (b.out && (b.out.exists || b.out.err)) {
    out.hidden = false;
    out.innerHTML = `<h2>Out file <code>${esc(b.out.path)}</code></h2>` + (b.out.err ? `<div class="err">${esc(b.out.err)}</div>` : "") + outPanel(b.out);
  } else out.hidden = true;
  // No empty column: a column whose panels are all hidden goes.
  for (const col of ["lines", "others"]) $(col).hidden = [...$(col).children].every((p) => p.hidden);
  $("servers").innerHTML = servers(b.servers);
  events(b.log);
}

function take(msg) {
  const b = JSON.parse(msg.data);
  if (b.version <= window.zkviewVersion && b.version !== 0) return;
  if (b.now > 0) skew = b.now - now();
  draw(b);
  window.zkviewVersion = b.version;
  if (b.notified > 0) {
    const ms = now() - b.notified;
    window.zkviewLatencies.push(ms);
    if (window.zkviewLatencies.length > 10000) window.zkviewLatencies.shift();
    $("latency").textContent = `${b.cause}: on the page ${ms.toFixed(1)} ms after ZooKeeper's notification`;
  }
}

function connect() {
  const es = new EventSource("events");
  es.onopen = () => { $("link").dataset.state = "live"; $("link").textContent = "live"; window.zkviewVersion = 0; };
  es.onerror = () => { $("link").dataset.state = "lost"; $("link").textContent = "zkview is not answering: trying again"; };
  es.onmessage = take;
}
document.addEventListener("toggle", (e) => { if (e.target.classList?.contains("raw")) rawOpen = e.target.open; }, true);
setInterval(tick, 100);
connect();
