// hapticsynth studio: the WebSocket (docs/studio.md, "WebSocket"), after transport.js. The
// server pushes the transport (drawn by transport.js as it comes: no polling) and a sound's
// changes; while the socket is open, the page's actions (analyse, edit, undo, redo, save, play,
// stop) go over it, the same actions as the HTTP routes, else over HTTP. If the socket cannot
// open or closes, the page goes on over HTTP and polls the transport while playing.
// For tests: `studio.socketState` ("connecting", "open", "closed"), `studio.pushedTransports`,
// `studio.socketCalls` (the actions sent over the socket, by name).
"use strict";

studio.socketState = "connecting";
studio.pushedTransports = 0;
studio.socketCalls = {};
let socket = null, lastSocketId = 0;
const socketWaiting = new Map();  // id → { resolve, reject }

function openSocket() {
  try {
    socket = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/api/socket");
  } catch (_) {
    socketClosed("");
    return;
  }
  socket.onopen = () => { studio.socketState = "open"; };
  socket.onmessage = (message) => {
    let data;
    try { data = JSON.parse(message.data); } catch (_) { return; }
    if (data.transport) {
      studio.pushedTransports++;
      showTransport(data.transport);
    } else if (data.id != null && socketWaiting.has(data.id)) {
      const waiting = socketWaiting.get(data.id);
      socketWaiting.delete(data.id);
      if ("error" in data) waiting.reject(new Error(data.error)); else waiting.resolve(data.result);
    }
  };
  socket.onclose = (event) => socketClosed(event.reason);
}

function socketClosed(reason) {
  const wasOpen = studio.socketState === "open";
  studio.socketState = "closed";
  socket = null;
  for (const waiting of socketWaiting.values()) waiting.reject(new Error("the studio's socket closed" + (reason ? ": " + reason : "")));
  socketWaiting.clear();
  if (wasOpen) say("the studio's socket closed" + (reason ? ": " + reason : "") + "; going on over HTTP", !!reason);
  showTransport(studio.transport);  // polls while playing
}

function socketCall(action, args) {
  return new Promise((resolve, reject) => {
    const id = ++lastSocketId;
    studio.socketCalls[action] = (studio.socketCalls[action] || 0) + 1;
    socketWaiting.set(id, { resolve, reject });
    socket.send(JSON.stringify({ ...args, id, action }));
  });
}

// studio.js's api(): the actions go over the socket while it is open.
const httpApi = api;
const socketActions = { "/api/analyse": "analyse", "/api/edit": "edit", "/api/undo": "undo", "/api/redo": "redo", "/api/save": "save", "/api/stop": "stop" };
api = async function (method, path, body) {
  const play = method === "POST" && /^\/api\/sounds\/([^/]+)\/play$/.exec(path);
  const action = method === "POST" && (socketActions[path] || (play && "play"));
  if (!action || studio.socketState !== "open") return httpApi(method, path, body);
  studio.busy++;
  try {
    return await socketCall(action, play ? { ...body, name: decodeURIComponent(play[1]) } : body || {});
  } finally {
    studio.busy--;
  }
};

openSocket();
