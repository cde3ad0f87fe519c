// The out file's strip: who wrote when over the last minute, a bar per
// stretch of steady writing; between two writers, the gap split in two
// where ZooKeeper told of the change of leader: the idle part (the old
// leader's last line to the notification: its interval not yet come
// round, or its session being waited out) and the handover proper (the
// notification to the new leader's first line); overlaps in red.
"use strict";

function colour(out, name) {
  const i = out.writers.indexOf(name);
  return i < 0 ? "#999" : palette[i % palette.length];
}

// strip draws out at width pixels, so that its text reads at the page's
// size whatever the column's width.
function strip(out, width) {
  if (!out.stretches.length) return "";
  const W = Math.max(width || 0, 400), left = 90, rowH = 20, top = 26, names = out.writers, H = top + rowH * names.length + 22;
  const end = Math.max(...out.stretches.map((s) => s.to));
  const start = Math.max(Math.min(...out.stretches.map((s) => s.from)), end - 60000);
  const span = Math.max(end - start, 1000);
  const x = (t) => left + ((Math.max(t, start) - start) / span) * (W - left - 16);
  const band = (cls, from, to, title) => `<rect class="${cls}" x="${x(from)}" y="${top}" width="${Math.max(x(to) - x(from), 3)}" height="${rowH * names.length}"><title>${esc(title)}</title></rect>`;
  let svg = `<svg class="strip" viewBox="0 0 ${W} ${H}" role="img" aria-label="who wrote when">`;
  names.forEach((n, i) => { svg += `<text x="4" y="${top + i * rowH + 14}">${esc(n)}</text>`; });
  for (const s of out.stretches) {
    if (s.to < start) continue;
    const i = names.indexOf(s.name);
    svg += `<rect x="${x(s.from)}" y="${top + i * rowH + 4}" width="${Math.max(x(s.to) - x(s.from), 2)}" height="${rowH - 8}" fill="${colour(out, s.name)}">` +
      `<title>${esc(s.name)}, epoch ${epoch(s.epoch)} (${s.epoch}), ${clock(s.from)} to ${clock(s.to)}</title></rect>`;
  }
  for (const g of out.gaps) {
    if (g.to < start) continue;
    svg += g.told ? split(g, x, band, top) :
      band("gap", g.from, g.to, `${g.before}'s last line to ${g.after}'s first: ${secs(g.to - g.from)}. zkview did not see this change of leader in ZooKeeper, so the idle time and the handover cannot be told apart`) +
      label(x, (g.from + g.to) / 2, top, `gap ${secs(g.to - g.from)}`, W);
  }
  for (const o of out.overlaps) {
    if (o.to < start) continue;
    svg += band("overlap", o.from, o.to, `${o.name} at once`);
  }
  svg += `<text x="${left}" y="${H - 6}">${clock(start)}</text><text x="${W - 16}" y="${H - 6}" text-anchor="end">${clock(end)}</text></svg>`;
  return svg + `<div class="legend"><i style="background:#9e9e9e66"></i>idle before ZooKeeper's notification` +
    `<i style="background:#f57c00aa"></i>handover: the notification to the new leader's first line</div>`;
}

// split draws a gap as its idle part and its handover, labelled with the
// handover's length, and the idle time's where there is room for it.
function split(g, x, band, top) {
  const idle = g.told - g.from, hand = g.to - g.told;
  const handText = g.late ? "shorter than zkview can time" : secs(hand);
  let svg = band("idle", g.from, g.told, `idle ${secs(idle)}: ${g.before}'s last line to ZooKeeper's notification that it left`) +
    band("handover", g.told, g.to, g.late ? `handover: zkview was told ${secs(g.late)} after ${g.after}'s first line` :
      `handover ${handText}: ZooKeeper's notification (as zkview got it, a little after ${g.after}) to ${g.after}'s first line`);
  svg += label(x, g.to, top, `handover ${handText}`, Infinity, "end");
  if (x(g.told) - x(g.from) > 70) svg += `<text class="idlelabel" x="${(x(g.from) + x(g.told)) / 2}" y="${top + 14}" text-anchor="middle">idle ${secs(idle)}</text>`;
  return svg;
}

function label(x, t, top, text, W, anchor = "middle") {
  const at = Math.min(x(t), W - 30);
  return `<text class="gaplabel" x="${at}" y="${top - 8}" text-anchor="${anchor}">${esc(text)}</text>`;
}
