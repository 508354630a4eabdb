// hapticsynth studio: the audition (after studio.js and timeline.js). Play plays the visible
// part of the timeline (zoom and scroll choose it): the sound and its haptic in lockstep on the
// studio's devices; Loop repeats it, each pass with the haptic as edited by then. While it
// plays, the page asks for the transport every 50 ms and draws the playhead where the engine's
// clock says it is.
"use strict";

studio.transport = { playing: false, loop: false, position: null, passes: 0 };
studio.drawnPlayhead = null;
let transportTimer = null;

function showTransport(transport) {
  if (studio.transport.playing && !transport.playing) say("stopped");
  studio.transport = transport;
  $("play").disabled = !studio.name;
  $("stop").disabled = !transport.playing;
  draw();
  if (transport.playing && !transportTimer) transportTimer = setTimeout(pollTransport, 50);
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
  const start = Math.max(0, studio.viewStart), end = Math.min(length, studio.viewStart + studio.viewSpan);
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

$("play").addEventListener("click", play);
$("stop").addEventListener("click", stop);
document.addEventListener("keydown", (event) => {
  if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
  if (event.key === " ") { event.preventDefault(); studio.transport.playing ? stop() : play(); }
});
