// hapticsynth studio: the audition (after studio.js and timeline.js). Play plays the range
// dragged on the sound's lane, else the visible part of the timeline (zoom and scroll choose
// it): the sound and its haptic in lockstep on the studio's devices; Loop repeats it, each pass with the haptic as edited by then. The
// server pushes the transport over the socket (socket.js); without one, the page asks for it
// every 50 ms while playing. The playhead is drawn where the engine's clock says it is.
"use strict";

studio.transport = { playing: false, loop: false, position: null, passes: 0 };
studio.drawnPlayhead = null;
studio.range = null;        // {start, end} in seconds of the sound: what Play plays, when set
let transportTimer = null, rangeDrag = null;

function showTransport(transport) {
  if (studio.transport.playing && !transport.playing) say("stopped");
  studio.transport = transport;
  $("play").disabled = !studio.name;
  $("stop").disabled = !transport.playing;
  draw();
  if (transport.playing && !transportTimer && studio.socketState !== "open") transportTimer = setTimeout(pollTransport, 50);
}

async function pollTransport() {
  transportTimer = null;
  try {
    showTransport(await api("GET", "/api/transport"));
  } catch (error) {
    say(error.message, true);
    showTransport({ playing: false, loop: false, position: null, passes: 0 });
  }
}

async function play() {
  if (!studio.name) return;
  const length = studio.view ? studio.view.sound.duration : 0;
  const chosen = studio.range || { start: studio.viewStart, end: studio.viewStart + studio.viewSpan };
  const start = Math.max(0, chosen.start), end = Math.min(length, chosen.end);
  try {
    const transport = await api("POST", "/api/sounds/" + encodeURIComponent(studio.name) + "/play", { start, end, loop: $("loop").checked });
    say(`playing ${studio.name} ${start.toFixed(3)}–${end.toFixed(3)} s` + (transport.loop ? ", looped" : ""));
    showTransport(transport);
  } catch (error) {
    say(error.message, true);
  }
}

async function stop() {
  try {
    showTransport(await api("POST", "/api/stop"));
  } catch (error) {
    say(error.message, true);
  }
}

// The playhead: a line across the lanes at the transport's position (seconds of the sound).
// `studio.drawnPlayhead`: the position drawn (null: none), for tests.
function drawPlayhead() {
  const t = studio.transport;
  studio.drawnPlayhead = null;
  if (!t.playing || t.position == null || t.name !== studio.name) return;
  const x = timeToX(t.position);
  if (x < x0 || x > canvas.clientWidth) return;
  studio.drawnPlayhead = t.position;
  ctx.fillStyle = "#2f9e44";
  ctx.fillRect(Math.round(x) - 1, 0, 2, canvas.clientHeight);
}

// The range: dragged on the sound's lane (a click there without a drag clears it), shaded on
// every lane. Shorter than the server's 0.02 s it is no range.
function drawRange() {
  const r = studio.range;
  if (!r) return;
  const a = Math.max(x0, timeToX(r.start)), b = Math.min(canvas.clientWidth, timeToX(r.end));
  if (b <= a) return;
  ctx.fillStyle = "rgba(47, 158, 68, 0.12)";
  ctx.fillRect(a, 0, b - a, canvas.clientHeight);
  ctx.fillStyle = "#2f9e44";
  ctx.fillRect(a, 0, 1, canvas.clientHeight);
  ctx.fillRect(b - 1, 0, 1, canvas.clientHeight);
}

function inSoundLane(event) {
  const lane = lanes().wave;
  return studio.view && event.offsetX >= x0 && event.offsetY >= lane.top && event.offsetY <= lane.top + lane.height;
}

function clampedTime(x) { return Math.min(Math.max(0, xToTime(x)), studio.view.sound.duration); }

canvas.addEventListener("mousedown", (event) => {
  if (!inSoundLane(event)) return;
  rangeDrag = { from: clampedTime(event.offsetX), startX: event.clientX, moved: false };
});
window.addEventListener("mousemove", (event) => {
  if (!rangeDrag || (!rangeDrag.moved && Math.abs(event.clientX - rangeDrag.startX) < 3)) return;
  rangeDrag.moved = true;
  const t = clampedTime(event.clientX - canvas.getBoundingClientRect().left);
  studio.range = { start: Math.min(rangeDrag.from, t), end: Math.max(rangeDrag.from, t) };
  draw();
});
window.addEventListener("mouseup", () => {
  if (!rangeDrag) return;
  const moved = rangeDrag.moved;
  rangeDrag = null;
  if (!moved || (studio.range && studio.range.end - studio.range.start < 0.02)) studio.range = null;
  draw();
  if (studio.range) say(`range ${studio.range.start.toFixed(3)}–${studio.range.end.toFixed(3)} s: Play plays it (a click on the sound clears it)`);
});

$("play").addEventListener("click", play);
$("stop").addEventListener("click", stop);
document.addEventListener("keydown", (event) => {
  if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
  if (event.key === " ") { event.preventDefault(); studio.transport.playing ? stop() : play(); }
});
