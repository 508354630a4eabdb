// hapticsynth studio: the page. Plain JavaScript, no build step. Every action goes through
// the studio's HTTP/JSON API (docs/studio.md): this file holds the page's state, the list, the
// controls and the edits; timeline.js draws the sound and the haptic and takes the mouse.
"use strict";

const $ = (id) => document.getElementById(id);
const canvas = $("canvas");
const ctx = canvas.getContext("2d");

// What the page holds. `window.studio` exposes it to tests (drawnTransients, busy).
const studio = {
  files: [], name: null, view: null, waveform: null,
  ladder: null,             // {name, settings, rungs}: asked for after the first draw (GET /api/ladder)
  selection: null,          // {kind: "transient"} or {kind: "point", curve}, with index
  viewStart: 0, viewSpan: 1, busy: 0, drawnTransients: [], drag: null,
};
window.studio = studio;

// MARK: API

async function api(method, path, body) {
  studio.busy++;
  try {
    const response = await fetch(path, {
      method, headers: body ? { "Content-Type": "application/json" } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    let data = text;
    try { data = JSON.parse(text); } catch (_) { /* the pattern's text is JSON; an error page is not */ }
    if (!response.ok) throw new Error((data && data.error) || `${response.status} ${response.statusText}`);
    return data;
  } finally {
    studio.busy--;
  }
}

function say(message, isError) {
  const status = $("status");
  status.textContent = message;
  status.classList.toggle("error", !!isError);
}

// MARK: the list

async function loadFiles() {
  studio.files = await api("GET", "/api/files");
  renderFiles();
}

function renderFiles() {
  const list = $("files");
  list.replaceChildren();
  for (const file of studio.files) {
    const item = document.createElement("li");
    item.dataset.name = file.name;
    item.dataset.state = file.state;
    item.className = file.kind + (file.name === studio.name ? " selected" : "");
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = file.name;
    const badge = document.createElement("span");
    badge.className = "badge " + file.state + (file.unsaved ? " unsaved" : "");
    badge.textContent = file.kind === "pattern" ? "pattern" : { none: "none yet", converted: "converted", edited: "edited" }[file.state];
    item.append(name, badge);
    // Sounds, and patterns of no sound (the designer's own files, edited as they are).
    if (file.openable) item.addEventListener("click", () => selectSound(file.name));
    item.classList.toggle("openable", !!file.openable);
    list.append(item);
  }
}

function markUnsaved(unsaved) {
  const file = studio.files.find((f) => f.name === studio.name);
  if (file) { file.unsaved = unsaved; renderFiles(); }
}

// MARK: a sound

async function selectSound(name) {
  say(`analysing ${name}…`);
  try {
    // A pattern file has no sound, so no waveform.
    const isPattern = /\.ahap$/i.test(name);
    const [view, waveform] = await Promise.all([
      api("GET", "/api/sound?name=" + encodeURIComponent(name)),
      isPattern ? null : api("GET", "/api/waveform?name=" + encodeURIComponent(name)),
    ]);
    studio.name = name;
    studio.waveform = waveform;
    studio.selection = null;
    studio.range = null;
    studio.viewStart = 0;
    studio.viewSpan = Math.max(view.sound.duration, 0.01);
    setControls(view);
    setView(view);
    renderFiles();
    // The address names the sound (a reload or a bookmark opens it); the first full draw is
    // marked for the page-open bench (bench/studio-bench.py --page).
    history.replaceState(null, "", "#sound=" + encodeURIComponent(name));
    if (!document.body.dataset.drawn) performance.mark("studio-drawn");
    document.body.dataset.drawn = name;
    say(view.kind === "pattern"
      ? `${name}: a pattern, ${view.sound.duration.toFixed(3)} s` + (view.notes.length ? ` (${view.notes.join("; ")})` : "")
      : `${name}: ${view.sound.duration.toFixed(3)} s, ${view.sound.channels} ch, ${view.sound.sampleRate} Hz`);
  } catch (error) {
    say(error.message, true);
  }
}

function setView(view) {
  studio.view = view;
  const state = studio.files.find((f) => f.name === view.name);
  const isPattern = view.kind === "pattern";
  $("title").textContent = isPattern ? view.name + " (pattern, saved in place)" : view.name + " → " + view.output;
  // A pattern file has no conversion: its controls are off (Play plays its haptic alone).
  for (const id of settingIds) $(id).disabled = isPattern;
  $("save-haptic").disabled = false;
  $("state").textContent = view.edits.count ? `${view.edits.count} edits` + (view.edits.orphans ? ` (${view.edits.orphans} not applied)` : "") : (state ? state.state : "");
  $("undo").disabled = !view.edits.canUndo;
  $("redo").disabled = !view.edits.canRedo;
  $("save").disabled = false;
  $("play").disabled = false;
  if (studio.selection && !selectedElement()) studio.selection = null;
  if (view.ladder) { studio.ladder = { name: view.name, settings: view.settings, rungs: view.ladder }; markLadder(); }
  else if (!ladderFits(studio.ladder, view)) { studio.ladder = null; requestLadder(); }
  showLadderNote();
  showInspector();
  draw();
}

// MARK: the ladder (made on the server after the first view: opening a sound does not wait for it)

// A ladder depends on every setting but the sensitivity and "audio" (in a fixed order: the
// server's JSON objects come in any order).
const ladderSettingNames = ["minGap", "ducking", "breakpointsPerSecond", "gain", "normalize", "gate", "channel", "from", "to"];
function ladderKey(name, settings) {
  return JSON.stringify([name, ...ladderSettingNames.map((key) => settings[key] ?? null)]);
}

function ladderFits(ladder, view) {
  return !!ladder && ladderKey(ladder.name, ladder.settings) === ladderKey(view.name, view.settings);
}

// The page's first ladder, for the page-open bench (bench/studio-bench.py --page).
function markLadder() {
  if (!performance.getEntriesByName("studio-ladder").length) performance.mark("studio-ladder");
}

let ladderAsked = null;
async function requestLadder() {
  const view = studio.view;
  if (!view || ladderAsked === ladderKey(view.name, view.settings)) return;
  const asked = ladderAsked = ladderKey(view.name, view.settings);
  try {
    const ladder = await api("GET", "/api/ladder?name=" + encodeURIComponent(view.name));
    if (studio.view && ladderFits(ladder, studio.view)) {
      studio.ladder = ladder;
      showLadderNote();
      draw();
      markLadder();
    }
  } catch (error) {
    say(error.message, true);
  } finally {
    ladderAsked = null;
  }
  // The settings moved while it was made: the ladder of the settings now (once per settings).
  if (studio.view && !ladderFits(studio.ladder, studio.view) && ladderKey(studio.view.name, studio.view.settings) !== asked) requestLadder();
}

// MARK: settings

const settingIds = ["sensitivity", "minGap", "ducking", "breakpointsPerSecond", "level", "level-mode", "gate", "channel", "from", "to", "audio"];

function setControls(view) {
  const s = view.settings;
  $("sensitivity").value = s.sensitivity;
  $("minGap").value = s.minGap;
  $("ducking").value = s.ducking;
  $("breakpointsPerSecond").value = s.breakpointsPerSecond;
  $("level-mode").value = s.normalize == null ? "gain" : "normalize";
  $("level").value = s.normalize == null ? s.gain : s.normalize;
  $("gate").value = s.gate;
  const channel = $("channel");
  channel.replaceChildren(new Option("mix", "mix"));
  for (let c = 1; c <= view.sound.channels; c++) channel.append(new Option(String(c), String(c)));
  channel.value = s.channel;
  $("from").value = s.from;
  $("to").value = s.to == null ? "" : s.to;
  $("audio").checked = s.audio;
  showOutputs();
}

function readNumber(id) {
  const text = $(id).value.trim();
  return text === "" ? null : Number(text);
}

function currentSettings() {
  const normalize = $("level-mode").value === "normalize";
  return {
    sensitivity: readNumber("sensitivity"), minGap: readNumber("minGap"), ducking: readNumber("ducking"),
    breakpointsPerSecond: readNumber("breakpointsPerSecond"),
    gain: normalize ? 0 : readNumber("level"), normalize: normalize ? readNumber("level") : null,
    gate: readNumber("gate"), channel: $("channel").value, from: readNumber("from") ?? 0, to: readNumber("to"), audio: $("audio").checked,
  };
}

function showOutputs() {
  $("sensitivity-value").textContent = $("sensitivity").value + " %";
  $("ducking-value").textContent = $("ducking").value + " %";
}

// The rung of the ladder nearest the slider: which hits that setting keeps.
function showLadderNote() {
  if (!studio.view) return;
  if (!studio.ladder) { $("ladder-note").textContent = "counting hits…"; return; }
  const rungs = studio.ladder.rungs;
  const s = Number($("sensitivity").value);
  const rung = rungs.reduce((best, r) => Math.abs(r.sensitivity - s) < Math.abs(best.sensitivity - s) ? r : best, rungs[0]);
  $("ladder-note").textContent = rung ? `at ${rung.sensitivity} %: ${rung.times.length} hits` : "";
}

// Moving a control re-analyses on the server; while one analysis runs, only the latest
// settings wait (a slider sends many values).
let queuedSettings = null, analysing = false;
function requestAnalyse() {
  if (!studio.name) return;
  queuedSettings = currentSettings();
  if (!analysing) runAnalyses();
}

async function runAnalyses() {
  analysing = true;
  studio.busy++;
  try {
    while (queuedSettings) {
      const settings = queuedSettings;
      queuedSettings = null;
      try {
        setView(await api("POST", "/api/analyse", { name: studio.name, settings }));
        markUnsaved(studio.view.unsaved);
        say(`${studio.view.haptic.transients.length} transients, ${studio.view.haptic.stretches.length} stretches`);
      } catch (error) {
        say(error.message, true);
      }
    }
  } finally {
    analysing = false;
    studio.busy--;
  }
}

for (const id of settingIds) {
  $(id).addEventListener("input", () => { showOutputs(); showLadderNote(); draw(); if ($(id).type === "range") requestAnalyse(); });
  $(id).addEventListener("change", requestAnalyse);
}

// MARK: edits

async function edit(operation) {
  if (!studio.name) return;
  try {
    setView(await api("POST", "/api/edit", { name: studio.name, edit: operation }));
    markUnsaved(true);
  } catch (error) {
    say(error.message, true);
  }
}

async function undoRedo(which) {
  if (!studio.name) return;
  try {
    setView(await api("POST", "/api/" + which, { name: studio.name }));
    markUnsaved(true);
  } catch (error) {
    say(error.message, true);
  }
}

async function save() {
  if (!studio.name) return;
  try {
    const result = await api("POST", "/api/save", { name: studio.name, haptic: $("save-haptic").checked });
    say(`saved ${result.written.join(", ")}` + (result.perSound ? ` (settings in ${result.perSound})` : ""));
    await loadFiles();
    if (studio.view) setView({ ...studio.view, unsaved: false });
  } catch (error) {
    say(error.message, true);
  }
}

$("undo").addEventListener("click", () => undoRedo("undo"));
$("redo").addEventListener("click", () => undoRedo("redo"));
$("save").addEventListener("click", save);

function curvePoints(curve) {
  return studio.view.haptic.stretches.flatMap((s) => s[curve]);
}

function selectedElement() {
  const sel = studio.selection, view = studio.view;
  if (!sel || !view) return null;
  if (sel.kind === "transient") return view.haptic.transients[sel.index] || null;
  const p = curvePoints(sel.curve)[sel.index];
  return p ? { time: p[0], value: p[1] } : null;
}

function showInspector() {
  const element = selectedElement();
  $("inspector").hidden = !element;
  if (!element) return;
  const isTransient = studio.selection.kind === "transient";
  $("selection-label").textContent = isTransient ? `transient ${studio.selection.index + 1}` : `${studio.selection.curve} point ${studio.selection.index + 1}`;
  $("sel-time").value = element.time.toFixed(3);
  $("sel-intensity-label").firstChild.textContent = isTransient ? "Intensity " : "Value ";
  $("sel-intensity").value = (isTransient ? element.intensity : element.value).toFixed(2);
  $("sel-sharpness-label").hidden = !isTransient;
  if (isTransient) $("sel-sharpness").value = element.sharpness.toFixed(2);
}

function inspectorEdit() {
  const sel = studio.selection;
  if (!sel) return;
  if (sel.kind === "transient") {
    edit({ op: "changeTransient", index: sel.index, time: readNumber("sel-time"), intensity: readNumber("sel-intensity"), sharpness: readNumber("sel-sharpness") });
  } else {
    edit({ op: "changePoint", curve: sel.curve, index: sel.index, time: readNumber("sel-time"), value: readNumber("sel-intensity") });
  }
}
for (const id of ["sel-time", "sel-intensity", "sel-sharpness"]) $(id).addEventListener("change", inspectorEdit);
$("sel-delete").addEventListener("click", deleteSelection);

function deleteSelection() {
  const sel = studio.selection;
  if (!sel) return;
  studio.selection = null;
  if (sel.kind === "transient") edit({ op: "deleteTransient", index: sel.index });
  else edit({ op: "deletePoint", curve: sel.curve, index: sel.index });
}

document.addEventListener("keydown", (event) => {
  if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
  const key = event.key.toLowerCase();
  if ((event.ctrlKey || event.metaKey) && key === "z") { event.preventDefault(); undoRedo(event.shiftKey ? "redo" : "undo"); }
  else if ((event.ctrlKey || event.metaKey) && key === "y") { event.preventDefault(); undoRedo("redo"); }
  else if (key === "delete" || key === "backspace") { event.preventDefault(); deleteSelection(); }
});

// MARK: start (once every script has run: the drawing is in timeline.js)

window.addEventListener("load", () => {
  const linked = /^#sound=(.+)$/.exec(location.hash);
  // A linked sound is opened alongside the list (its analysis need not wait for the list).
  if (linked) selectSound(decodeURIComponent(linked[1]));
  loadFiles().then(() => { if (!linked) say(`${studio.files.length} files`); }).catch((error) => say(error.message, true));
  draw();
});
