// The server's JSON API and the table WebSocket (with automatic reconnect).

export class ApiError extends Error {
  constructor(status, message, code = null) {
    super(message);
    this.status = status;
    this.code = code; // the server's "error" ("private_table", "not_over", ...)
  }
}

export async function api(path, body, method) {
  const init = { method: method || (body === undefined ? "GET" : "POST"), headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(`/api${path}`, init);
  } catch {
    throw new ApiError(0, "The server cannot be reached.");
  }
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) {
    let msg = data && (data.message || data.detail || data.error);
    if (Array.isArray(msg)) msg = msg.map((d) => d.msg || JSON.stringify(d)).join("; ");
    if (msg && typeof msg === "object") msg = msg.message || JSON.stringify(msg);
    throw new ApiError(res.status, msg || `The server said ${res.status}.`, data && data.error);
  }
  return data;
}

let gamesCache = null;
export async function games() {
  if (!gamesCache) gamesCache = api("/games").then((d) => d.games);
  try {
    return await gamesCache;
  } catch (e) {
    gamesCache = null;
    throw e;
  }
}

export async function gameInfo(name) {
  return (await games()).find((g) => g.name === name);
}

/** A computer player's level as the lobby says it ("Casual"), from its spec and the game's ``info``
 * (gameInfo); null for a spec the game does not list. */
export function agentLevel(info, spec) {
  const a = info && info.agents.find((x) => x.spec === spec);
  return a ? a.label.split(":")[0] : null;
}

// -- seats this browser holds (token per table, kept across reloads) ---------------------------
const SEATS_KEY = "gamester.seats";

function allSeats() {
  try {
    return JSON.parse(localStorage.getItem(SEATS_KEY) || "{}");
  } catch {
    return {};
  }
}

export function mySeat(tableId) {
  return allSeats()[tableId] || null;
}

export function rememberSeat(tableId, seat, token) {
  const all = allSeats();
  all[tableId] = { seat, token, at: Date.now() };
  // Keep the newest 50 tables only.
  const keys = Object.keys(all).sort((a, b) => all[b].at - all[a].at);
  for (const k of keys.slice(50)) delete all[k];
  localStorage.setItem(SEATS_KEY, JSON.stringify(all));
}

export function forgetSeat(tableId) {
  const all = allSeats();
  delete all[tableId];
  localStorage.setItem(SEATS_KEY, JSON.stringify(all));
}

/**
 * The path of a table's resource under /api (rest: "", "/record", "/replay", ...) with what lets this
 * browser see the table if it is private: the seat's token it holds, else the invite of the link it
 * came by (a seat's invite or the watch code). query: more of the query string ("seat=1").
 */
export function tablePath(tableId, rest = "", query = "", invite = null) {
  const saved = mySeat(tableId);
  const cred = saved && saved.token ? `token=${encodeURIComponent(saved.token)}`
    : invite ? `invite=${encodeURIComponent(invite)}` : "";
  const q = [query, cred].filter(Boolean).join("&");
  return `/tables/${encodeURIComponent(tableId)}${rest}${q ? `?${q}` : ""}`;
}

/** A socket message's JSON, or null for one that is not (never thrown). */
export function parseMessage(ev) {
  try {
    return JSON.parse(ev.data);
  } catch {
    return null;
  }
}

/**
 * A table's WebSocket. onMessage(msg) for every JSON message; onState("open"|"lost"|"refused").
 * A lost connection is retried with growing delays until close() is called; a refused token
 * (close code 1008) is not retried.
 */
export class TableSocket {
  constructor(tableId, token, onMessage, onState, invite = null) {
    this.tableId = tableId;
    this.token = token;
    this.invite = invite; // a spectator of a private table watches with an invite
    this.onMessage = onMessage;
    this.onState = onState;
    this.closed = false;
    this.retries = 0;
    this.ws = null;
    this.timer = null;
    this.connect();
  }

  connect() {
    if (this.closed) return;
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const q = this.token ? `?token=${encodeURIComponent(this.token)}`
      : this.invite ? `?invite=${encodeURIComponent(this.invite)}` : "";
    const ws = new WebSocket(`${proto}//${location.host}/ws/tables/${encodeURIComponent(this.tableId)}${q}`);
    this.ws = ws;
    ws.onopen = () => {
      this.retries = 0;
      this.onState("open");
      clearInterval(this.timer);
      // A ping now and then keeps proxies from dropping an idle game.
      this.timer = setInterval(() => this.send({ type: "ping" }), 25000);
    };
    ws.onmessage = (ev) => {
      const msg = parseMessage(ev);
      if (msg) this.onMessage(msg);
    };
    ws.onclose = (ev) => {
      clearInterval(this.timer);
      if (this.closed || ws !== this.ws) return;
      if (ev.code === 1008) {
        this.onState("refused");
        return;
      }
      this.onState("lost");
      const delay = Math.min(8000, 500 * 2 ** this.retries++);
      setTimeout(() => this.connect(), delay);
    };
    ws.onerror = () => {}; // onclose follows and handles it
  }

  send(obj) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(obj));
      return true;
    }
    return false;
  }

  close() {
    this.closed = true;
    clearInterval(this.timer);
    if (this.ws) this.ws.close();
  }
}
