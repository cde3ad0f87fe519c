// zkview's page: it takes each Board the server streams (Server-Sent
// Events) and draws it whole. Every candidate, contender and member is an
// element with data-name and data-role; every server one with data-server
// and data-mode, so that scripts and tests can read the page.
"use strict";

const palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22"];
// zkviewLatencies holds, for each Board drawn that a ZooKeeper notification
// caused, the milliseconds from that notification reaching zkview to the
// page drawn: the figure the page is measured by.
window.zkviewLatencies = [];
window.zkviewVersion = 0;
let lastKeys = {};

const $ = (id) => document.getElementById(id);
function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}
function now() { return performance.timeOrigin + performance.now(); }
function clock(ms) { return new Date(ms).toLocaleTimeString([], { hour12: false }) + "." + String(Math.floor(ms % 1000)).padStart(3, "0"); }
function secs(ms) { return ms < 1000 ? Math.round(ms) + " ms" : (ms / 1000).toFixed(2) + " s"; }

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
// finds a lost create.
function seq(znode) {
  const m = /(\d{10})$/.exec(znode || "");
  return m ? "znode …" + m[1] : "";
}

function card(c) {
  const epoch = c.role !== "waiting" && c.epoch ? ` · epoch ${c.epoch}` : "";
  const where = c.seen === "connected" ? `on ${esc(c.server)}` : `<span class="gone">${esc(c.seen)}</span>`;
  return `<div class="cand" data-name="${esc(c.name)}" data-role="${esc(c.role)}">` +
    `<span class="role">${esc(c.role)}</span><div class="name">${esc(c.name)}</div>` +
    `<div class="meta">${esc(seq(c.znode))}${epoch}<br>session ${esc(c.session)} ${where}</div></div>`;
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
  if (!list.length) return `<div class="empty">not asked yet</div>`;
  return list.map((s) => `<span class="server" data-server="${esc(s.addr)}" data-mode="${esc(s.mode)}">${esc(s.addr)} <span class="mode">${esc(s.mode)}</span>` +
    (s.mode === "down" ? "" : ` · ${s.connections} conn.`) + `</span>`).join("");
}

function colour(out, name) {
  const i = out.writers.indexOf(name);
  return i < 0 ? "#999" : palette[i % palette.length];
}

// strip draws who wrote when over the last minute of the out file: a bar
// per stretch of steady writing, each gap between writers with its length,
// overlaps in red.
function strip(out) {
  if (!out.stretches.length) return "";
  const W = 1000, rowH = 18, top = 22, names = out.writers, H = top + rowH * names.length + 22;
  const end = Math.max(...out.stretches.map((s) => s.to));
  const start = Math.max(Math.min(...out.stretches.map((s) => s.from)), end - 60000);
  const span = Math.max(end - start, 1000);
  const x = (t) => 110 + ((Math.max(t, start) - start) / span) * (W - 130);
  let svg = `<svg class="strip" viewBox="0 0 ${W} ${H}" role="img" aria-label="who wrote when">`;
  names.forEach((n, i) => {
    svg += `<text x="4" y="${top + i * rowH + 13}">${esc(n)}</text>`;
  });
  for (const s of out.stretches) {
    if (s.to < start) continue;
    const i = names.indexOf(s.name);
    svg += `<rect x="${x(s.from)}" y="${top + i * rowH + 3}" width="${Math.max(x(s.to) - x(s.from), 2)}" height="${rowH - 6}" fill="${colour(out, s.name)}"><title>${esc(s.name)} epoch ${s.epoch}</title></rect>`;
  }
  for (const g of out.gaps) {
    if (g.to < start) continue;
    const mid = (x(g.from) + x(g.to)) / 2;
    svg += `<rect x="${x(g.from)}" y="${top}" width="${Math.max(x(g.to) - x(g.from), 3)}" height="${rowH * names.length}" fill="#f57c00" fill-opacity=".35"/>`;
    svg += `<text class="gaplabel" x="${mid}" y="${top - 6}" text-anchor="middle">${secs(g.to - g.from)}</text>`;
  }
  for (const o of out.overlaps) {
    if (o.to < start) continue;
    svg += `<rect class="overlap" x="${x(o.from)}" y="${top}" width="${Math.max(x(o.to) - x(o.from), 3)}" height="${rowH * names.length}"><title>${esc(o.name)} at once</title></rect>`;
  }
  svg += `<text x="110" y="${H - 6}">${clock(start)}</text><text x="${W - 20}" y="${H - 6}" text-anchor="end">${clock(end)}</text></svg>`;
  return svg;
}

function outPanel(out) {
  if (!out.exists) return `<div class="empty">${esc(out.path)} does not exist yet: no speaker has spoken</div>`;
  const lines = out.lines.map((l) => `<div style="color:${colour(out, l.name)}">${esc(l.text)}</div>`).join("");
  return strip(out) + `<div id="outlines">${lines}</div>`;
}

function events(log) {
  $("events").innerHTML = log.slice().reverse().map((e) =>
    `<li data-kind="${esc(e.kind)}"><time>${clock(e.at)}</time>${esc(e.text)}</li>`).join("");
}

function draw(b) {
  show("election", b.election, "Election", b.election ? line(b.election, "election") : "");
  show("single", b.single, "Single-file election", b.single ? single(b.single) : "");
  show("lock", b.lock, "Lock", b.lock ? line(b.lock, "lock") : "");
  show("group", b.group, "Group", b.group ? group(b.group) : "");
  show("config", b.config, "Configuration", b.config ? config(b.config) : "");
  show("sequences", b.sequences, "Sequences", b.sequences ? sequences(b.sequences) : "");
  const out = $("out");
  if (b.out && (b.out.exists || b.out.err)) {
    out.hidden = false;
    out.innerHTML = `<h2>Out file <code>${esc(b.out.path)}</code></h2>` + (b.out.err ? `<div class="err">${esc(b.out.err)}</div>` : "") + outPanel(b.out);
  } else out.hidden = true;
  $("servers").innerHTML = `<h2>Servers</h2>` + servers(b.servers);
  events(b.log);
}

function take(msg) {
  const b = JSON.parse(msg.data);
  if (b.version <= window.zkviewVersion && b.version !== 0) return;
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
connect();
