// hapticsynth studio: the timeline (after studio.js, whose state and functions it uses): the
// sound's waveform and envelope, the haptic as `plot` draws it and the sensitivity ladder on one
// time axis, zoom and scroll, and editing with the mouse.
"use strict";

// MARK: drawing

// The plot's sharpness scale (HapticPlot's PlotTheme, light): dull and low to sharp and high.
const sharpnessStops = [[0x2c, 0x1e, 0x7a], [0x7b, 0x2a, 0x9a], [0xc2, 0x3a, 0x6b], [0xe9, 0x70, 0x2a], [0xe8, 0xb8, 0x00]];
function sharpnessColour(s, alpha = 1) {
  const x = Math.min(Math.max(s, 0), 1) * (sharpnessStops.length - 1);
  const i = Math.min(Math.floor(x), sharpnessStops.length - 2), t = x - i;
  const [a, b] = [sharpnessStops[i], sharpnessStops[i + 1]];
  const c = a.map((v, k) => Math.round(v + (b[k] - v) * t));
  return `rgba(${c[0]},${c[1]},${c[2]},${alpha})`;
}

// Lanes, top to bottom (CSS pixels): time axis, waveform and envelope, haptic, sensitivity ladder.
function lanes() {
  const h = canvas.clientHeight, axis = 20, gap = 8;
  const ladder = Math.max(80, h * 0.22);
  const rest = h - axis - ladder - 2 * gap;
  const wave = rest * 0.38;
  return {
    axis: { top: 0, height: axis },
    wave: { top: axis, height: wave },
    haptic: { top: axis + wave + gap, height: rest - wave },
    ladder: { top: h - ladder, height: ladder - 4 },
  };
}

const x0 = 44;  // the lanes' left edge (labels to its left)
function timeToX(t) { return x0 + (t - studio.viewStart) / studio.viewSpan * (canvas.clientWidth - x0 - 8); }
function xToTime(x) { return studio.viewStart + (x - x0) / (canvas.clientWidth - x0 - 8) * studio.viewSpan; }
function valueToY(v, lane) { return lane.top + lane.height - v * (lane.height - 6); }
function yToValue(y, lane) { return Math.min(1, Math.max(0, (lane.top + lane.height - y) / (lane.height - 6))); }

function draw() {
  const dpr = window.devicePixelRatio || 1;
  const w = canvas.clientWidth, h = canvas.clientHeight;
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
  }
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, w, h);
  const view = studio.view;
  if (!view) {
    studio.drawnTransients = [];
    canvas.dataset.transients = "[]";
    return;
  }
  const L = lanes();
  drawAxis(L.axis, h);
  drawWaveform(L.wave);
  drawHaptic(L.haptic, view);
  drawLadder(L.ladder, view);
  if (typeof drawRange === "function") drawRange();  // transport.js
  if (typeof drawPlayhead === "function") drawPlayhead();
  updateScroll();
}

function drawAxis(lane, h) {
  ctx.fillStyle = "#6b6b78";
  ctx.font = "11px system-ui, sans-serif";
  const step = niceStep(studio.viewSpan / 8);
  const first = Math.ceil(studio.viewStart / step) * step;
  for (let t = first; t <= studio.viewStart + studio.viewSpan; t += step) {
    const x = timeToX(t);
    ctx.fillRect(x, lane.height - 5, 1, 5);
    ctx.fillText(formatTime(t, step), x + 2, 12);
    ctx.fillStyle = "rgba(0,0,0,0.05)";
    ctx.fillRect(x, lane.height, 1, h - lane.height);
    ctx.fillStyle = "#6b6b78";
  }
}

function niceStep(raw) {
  const p = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1e-6))));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}
function formatTime(t, step) { return step >= 1 ? t.toFixed(0) + " s" : t.toFixed(Math.min(3, Math.ceil(-Math.log10(step)))) + " s"; }

function laneLabel(text, lane) {
  ctx.fillStyle = "#6b6b78";
  ctx.font = "11px system-ui, sans-serif";
  ctx.fillText(text, 2, lane.top + 12);
}

function drawWaveform(lane) {
  const wf = studio.waveform;
  laneLabel("sound", lane);
  if (!wf || !wf.max.length) return;
  const mid = lane.top + lane.height / 2, half = lane.height / 2 - 2;
  const first = Math.max(0, Math.floor(studio.viewStart / wf.bucketSeconds));
  const last = Math.min(wf.max.length, Math.ceil((studio.viewStart + studio.viewSpan) / wf.bucketSeconds) + 1);
  const perPixel = Math.max(1, Math.floor((last - first) / (canvas.clientWidth - x0)));
  ctx.fillStyle = "#9aa7c7";
  for (let i = first; i < last; i += perPixel) {
    let lo = 0, hi = 0;
    for (let k = i; k < Math.min(last, i + perPixel); k++) { lo = Math.min(lo, wf.min[k]); hi = Math.max(hi, wf.max[k]); }
    const x = timeToX(i * wf.bucketSeconds);
    ctx.fillRect(x, mid - hi * half, Math.max(1, timeToX((i + perPixel) * wf.bucketSeconds) - x), Math.max(1, (hi - lo) * half));
  }
  // The envelope (RMS), both sides.
  ctx.strokeStyle = "#2b3a67";
  ctx.lineWidth = 1.2;
  for (const sign of [1, -1]) {
    ctx.beginPath();
    for (let i = first; i < last; i += perPixel) {
      const x = timeToX((i + 0.5) * wf.bucketSeconds), y = mid - sign * wf.rms[i] * half;
      i === first ? ctx.moveTo(x, y) : ctx.lineTo(x, y);
    }
    ctx.stroke();
  }
}

function sharpnessAt(points, t) {
  if (!points.length) return 0.5;
  if (t <= points[0][0]) return points[0][1];
  for (let i = 1; i < points.length; i++) {
    if (t <= points[i][0]) {
      const [a, b] = [points[i - 1], points[i]];
      return a[1] + (b[1] - a[1]) * (t - a[0]) / Math.max(b[0] - a[0], 1e-9);
    }
  }
  return points[points.length - 1][1];
}

function drawHaptic(lane, view) {
  laneLabel("haptic", lane);
  const offset = view.haptic.offset;
  ctx.strokeStyle = "#e3e3ea";
  ctx.beginPath();
  ctx.moveTo(x0, lane.top + lane.height + 0.5);
  ctx.lineTo(canvas.clientWidth, lane.top + lane.height + 0.5);
  ctx.stroke();
  const mode = $("mode").value;
  for (const stretch of view.haptic.stretches) {
    // The intensity area, each slice coloured by the sharpness there.
    const pts = stretch.intensity;
    for (let i = 1; i < pts.length; i++) {
      const [a, b] = [pts[i - 1], pts[i]];
      const xa = timeToX(a[0] + offset), xb = timeToX(b[0] + offset);
      if (xb < x0 || xa > canvas.clientWidth) continue;
      ctx.fillStyle = sharpnessColour(sharpnessAt(stretch.sharpness, (a[0] + b[0]) / 2), 0.55);
      ctx.beginPath();
      ctx.moveTo(xa, valueToY(0, lane));
      ctx.lineTo(xa, valueToY(a[1], lane));
      ctx.lineTo(xb, valueToY(b[1], lane));
      ctx.lineTo(xb, valueToY(0, lane));
      ctx.fill();
    }
    drawCurve(stretch.intensity, offset, lane, "#1d1d24", [], mode === "intensity");
    drawCurve(stretch.sharpness, offset, lane, "#c23a6b", [4, 3], mode === "sharpness");
  }
  if (mode !== "transients" && studio.selection && studio.selection.kind === "point") {
    const p = curvePoints(studio.selection.curve)[studio.selection.index];
    if (p) marker(timeToX(p[0] + offset), valueToY(p[1], lane), true);
  }
  // Transients: stems as tall as their intensity, coloured by their sharpness.
  const drawn = [];
  view.haptic.transients.forEach((hit, index) => {
    let { time, intensity } = hit;
    if (studio.drag && studio.drag.kind === "transient" && studio.drag.index === index) ({ time, intensity } = studio.drag);
    drawn.push({ time: hit.time, intensity: hit.intensity, sharpness: hit.sharpness });
    const x = timeToX(time + offset);
    if (x < x0 - 4 || x > canvas.clientWidth + 4) return;
    const selected = studio.selection && studio.selection.kind === "transient" && studio.selection.index === index;
    ctx.strokeStyle = sharpnessColour(hit.sharpness);
    ctx.lineWidth = selected ? 3 : 2;
    ctx.beginPath();
    ctx.moveTo(x, valueToY(0, lane));
    ctx.lineTo(x, valueToY(intensity, lane));
    ctx.stroke();
    ctx.fillStyle = hit.origin === "analysed" ? sharpnessColour(hit.sharpness) : "#ffffff";
    ctx.beginPath();
    ctx.arc(x, valueToY(intensity, lane), selected ? 6 : 4, 0, 2 * Math.PI);
    ctx.fill();
    ctx.stroke();
  });
  studio.drawnTransients = drawn;
  canvas.dataset.transients = JSON.stringify(drawn);
}

function drawCurve(points, offset, lane, colour, dash, editable) {
  ctx.strokeStyle = colour;
  ctx.lineWidth = editable ? 1.8 : 1;
  ctx.setLineDash(dash);
  ctx.beginPath();
  points.forEach((p, i) => {
    const x = timeToX(p[0] + offset), y = valueToY(p[1], lane);
    i === 0 ? ctx.moveTo(x, y) : ctx.lineTo(x, y);
  });
  ctx.stroke();
  ctx.setLineDash([]);
  if (editable) for (const p of points) marker(timeToX(p[0] + offset), valueToY(p[1], lane), false);
}

function marker(x, y, selected) {
  ctx.fillStyle = selected ? "#3b5bdb" : "#ffffff";
  ctx.strokeStyle = "#3b5bdb";
  ctx.lineWidth = 1;
  ctx.fillRect(x - 3, y - 3, 6, 6);
  ctx.strokeRect(x - 3, y - 3, 6, 6);
}

// The ladder: a row per sensitivity (0 … 100 %), a dot at each hit that setting keeps.
function drawLadder(lane, view) {
  // (Drawn when it arrives: the page asks for it after the sound's first draw.)
  const rungs = studio.ladder ? studio.ladder.rungs : [];
  laneLabel(studio.ladder ? "hits at" : "hits at … (counting)", lane);
  const rows = rungs.length, rowHeight = lane.height / Math.max(rows, 1);
  const current = Number($("sensitivity").value);
  const nearest = rungs.reduce((best, r) => Math.abs(r.sensitivity - current) < Math.abs(best.sensitivity - current) ? r : best, rungs[0]);
  rungs.forEach((rung, i) => {
    const y = lane.top + lane.height - (i + 0.5) * rowHeight;
    if (rung === nearest) {
      ctx.fillStyle = "rgba(59,91,219,0.12)";
      ctx.fillRect(x0, y - rowHeight / 2, canvas.clientWidth - x0, rowHeight);
    }
    if (i % 2 === 0) {
      ctx.fillStyle = "#6b6b78";
      ctx.font = "10px system-ui, sans-serif";
      ctx.fillText(rung.sensitivity + " %", 4, y + 3);
    }
    ctx.fillStyle = rung === nearest ? "#3b5bdb" : "#8d8da0";
    for (const t of rung.times) {
      const x = timeToX(t + view.haptic.offset);
      if (x >= x0 && x <= canvas.clientWidth) ctx.fillRect(x - 1, y - Math.min(3, rowHeight / 3), 2, Math.min(6, rowHeight * 0.66));
    }
  });
}

// MARK: zoom and scroll

function duration() { return studio.view ? Math.max(studio.view.sound.duration, 0.01) : 1; }

function setViewRange(start, span) {
  const total = duration();
  studio.viewSpan = Math.min(Math.max(span, 0.005), total);
  studio.viewStart = Math.min(Math.max(start, 0), total - studio.viewSpan);
  draw();
}

function zoom(factor, aroundTime) {
  const t = aroundTime ?? studio.viewStart + studio.viewSpan / 2;
  const span = studio.viewSpan / factor;
  setViewRange(t - (t - studio.viewStart) / factor, span);
}

function updateScroll() {
  const room = duration() - studio.viewSpan;
  $("scroll").disabled = room <= 0;
  $("scroll").value = room > 0 ? Math.round(studio.viewStart / room * 1000) : 0;
}

$("zoom-in").addEventListener("click", () => zoom(2));
$("zoom-out").addEventListener("click", () => zoom(0.5));
$("zoom-all").addEventListener("click", () => setViewRange(0, duration()));
$("scroll").addEventListener("input", () => setViewRange((duration() - studio.viewSpan) * $("scroll").value / 1000, studio.viewSpan));
canvas.addEventListener("wheel", (event) => {
  event.preventDefault();
  if (event.ctrlKey) zoom(event.deltaY < 0 ? 1.25 : 0.8, xToTime(event.offsetX));
  else setViewRange(studio.viewStart + (event.deltaX || event.deltaY) / 1000 * studio.viewSpan, studio.viewSpan);
}, { passive: false });
$("mode").addEventListener("change", () => { studio.selection = null; showInspector(); draw(); });
window.addEventListener("resize", draw);

// MARK: editing with the mouse

function hitTest(x, y) {
  const view = studio.view, lane = lanes().haptic, offset = view.haptic.offset;
  if (y < lane.top - 8 || y > lane.top + lane.height + 8) return null;
  const mode = $("mode").value;
  let best = null, bestDistance = 8;
  if (mode === "transients") {
    view.haptic.transients.forEach((hit, index) => {
      const d = Math.abs(timeToX(hit.time + offset) - x);
      if (d < bestDistance) { best = { kind: "transient", index }; bestDistance = d; }
    });
  } else {
    curvePoints(mode).forEach((p, index) => {
      const d = Math.hypot(timeToX(p[0] + offset) - x, valueToY(p[1], lane) - y);
      if (d < bestDistance) { best = { kind: "point", curve: mode, index }; bestDistance = d; }
    });
  }
  return best;
}

canvas.addEventListener("mousedown", (event) => {
  if (!studio.view) return;
  const hit = hitTest(event.offsetX, event.offsetY);
  studio.selection = hit;
  if (hit) studio.drag = { ...hit, startX: event.offsetX, moved: false };
  showInspector();
  draw();
});

canvas.addEventListener("mousemove", (event) => {
  const drag = studio.drag;
  if (!drag) return;
  if (Math.abs(event.offsetX - drag.startX) > 2) drag.moved = true;
  if (!drag.moved) return;
  const lane = lanes().haptic;
  drag.time = Math.max(0, xToTime(event.offsetX) - studio.view.haptic.offset);
  drag.intensity = yToValue(event.offsetY, lane);
  drag.value = drag.intensity;
  draw();
});

canvas.addEventListener("mouseup", () => {
  const drag = studio.drag;
  studio.drag = null;
  if (!drag || !drag.moved) return;
  const time = Math.min(drag.time, studio.view.haptic.duration);
  if (drag.kind === "transient") edit({ op: "changeTransient", index: drag.index, time, intensity: drag.intensity });
  else edit({ op: "changePoint", curve: drag.curve, index: drag.index, time, value: drag.value });
});

canvas.addEventListener("dblclick", (event) => {
  if (!studio.view || hitTest(event.offsetX, event.offsetY)) return;
  const lane = lanes().haptic;
  if (event.offsetY < lane.top || event.offsetY > lane.top + lane.height) return;
  const time = Math.min(Math.max(0, xToTime(event.offsetX) - studio.view.haptic.offset), studio.view.haptic.duration);
  const value = yToValue(event.offsetY, lane);
  const mode = $("mode").value;
  if (mode === "transients") edit({ op: "addTransient", time, intensity: value, sharpness: 0.5 });
  else edit({ op: "addPoint", curve: mode, time, value });
});

