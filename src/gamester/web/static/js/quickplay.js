// The lobby's live parts: Quick play (a seek, docs/web.md "Quick play"), the people looking for a
// game right now, and your tables (your turn first), kept up to date by the lobby socket /ws/lobby.

import { agentLevel, api, parseMessage, rememberSeat } from "./api.js";
import { clear, el, put, saveSettings, settings, toast } from "./ui.js";

export const FAST_CLOCKS = [[null, "No clock"], [15, "15 s a move"], [30, "30 s a move"], [60, "1 min a move"],
  [180, "3 min a move"]];
// Slow games (correspondence): accounts only, up to three days a move.
export const SLOW_CLOCKS = [[3600, "1 hour a move"], [86400, "1 day a move"], [259200, "3 days a move"]];
const BOTS = [["", "never: people only"], ["0", "at once"], ["15", "after 15 s"], ["30", "after 30 s"],
  ["60", "after 1 min"], ["180", "after 3 min"]];

/** The clock choices a player may make: the slow ones once logged in. */
export function clockChoices(me) {
  return me ? [...FAST_CLOCKS, ...SLOW_CLOCKS] : FAST_CLOCKS;
}

/** "30 s a move", "1 day a move", or "no clock". */
export function clockWords(clock) {
  if (!clock) return "no clock";
  const s = clock.seconds_per_move;
  if (s >= 86400 && s % 86400 === 0) return `${s / 86400} day${s === 86400 ? "" : "s"} a move`;
  if (s >= 3600 && s % 3600 === 0) return `${s / 3600} hour${s === 3600 ? "" : "s"} a move`;
  if (s >= 60 && s % 60 === 0) return `${s / 60} min a move`;
  return `${s} s a move`;
}

/** Time left on a clock: "42s", "3:05", "5 h 12 min", "2 d 3 h" (slow games run for days). */
export function leftWords(seconds) {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}

/** How long ago, in a word or two. */
export function ago(seconds) {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}\u00a0s`; // a number and its unit never part at the end of a line
  if (s < 3600) return `${Math.floor(s / 60)}\u00a0min`;
  if (s < 86400) return `${Math.floor(s / 3600)}\u00a0h`;
  return `${Math.floor(s / 86400)}\u00a0d`;
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** The rule set a seek's (complete) options are, or "own rules"; and its player count. */
export function rulesWords(info, options) {
  if (!info) return "";
  const defaults = Object.fromEntries(info.options.map((o) => [o.name, o.default]));
  const fits = (r, skip) => Object.entries(options).every(([k, v]) => k === skip
    || same(v, k in r.options ? r.options[k] : defaults[k]));
  const exact = info.rulesets.find((r) => fits(r, null));
  const found = exact || info.rulesets.find((r) => fits(r, "players"));
  const named = exact && "players" in exact.options; // "two player" says it already
  const count = info.players.length > 1 && options.players && !named ? `, ${options.players} players` : "";
  return `${found ? found.name.replace(/_/g, " ") : "own rules"}${count}`;
}

/** The other seats of a table as a player reads them: names, and computer players by level. */
function opponents(info, names, seat) {
  const words = [];
  const bots = new Map();
  names.forEach((n, i) => {
    if (i === seat) return;
    const bot = n && agentLevel(info, n);
    if (bot) bots.set(bot, (bots.get(bot) || 0) + 1);
    else words.push(n || "open seat");
  });
  for (const [bot, k] of bots) words.push(k > 1 ? `${k} × ${bot}` : bot);
  return words.join(", ") || "nobody yet";
}

/**
 * The lobby socket: onSeeks(list) and onTables(message) whenever the server says they changed; it
 * reconnects by itself with growing pauses until close(). ``open`` says whether it is connected.
 */
export class LobbySocket {
  constructor(onSeeks, onTables) {
    this.onSeeks = onSeeks;
    this.onTables = onTables;
    this.open = false;
    this.closed = false;
    this.retries = 0;
    this.connect();
  }

  connect() {
    if (this.closed) return;
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}/ws/lobby`);
    this.ws = ws;
    ws.onopen = () => {
      this.open = true;
      this.retries = 0;
      clearInterval(this.ping);
      this.ping = setInterval(() => ws.readyState === WebSocket.OPEN && ws.send('{"type":"ping"}'), 25000);
    };
    ws.onmessage = (ev) => {
      const msg = parseMessage(ev);
      if (msg && msg.type === "seeks") this.onSeeks(msg.seeks);
      else if (msg && msg.type === "tables") this.onTables(msg);
    };
    ws.onclose = () => {
      this.open = false;
      clearInterval(this.ping);
      if (this.closed || ws !== this.ws) return;
      setTimeout(() => this.connect(), Math.min(15000, 1000 * 2 ** this.retries++));
    };
    ws.onerror = () => {};
  }

  close() {
    this.closed = true;
    clearInterval(this.ping);
    if (this.ws) this.ws.close();
  }
}

/**
 * Quick play and the open seeks, in one panel. ``games``: GET /api/games; ``me``: the account or
 * null; ``guestName()``: the name a guest typed. Seeking polls its seek every second (and at once
 * when the lobby says the seeks changed) until it is seated, then opens the table.
 */
export class QuickPlay {
  constructor(games, me, guestName) {
    this.games = games;
    this.me = me;
    this.guestName = guestName;
    this.seeking = null; // {seek, token, started, body}
    this.seeks = [];
    this.node = el("section.panel.quick-play", { "data-testid": "quick-play" });
    this.status = el("div.qp-status", { role: "status", "aria-live": "polite" });
    this.list = el("div.qp-seeks", { "data-testid": "open-seeks" });
    this.leaving = () => this.cancel(true);
    window.addEventListener("pagehide", this.leaving);
    this.render();
  }

  destroy() {
    window.removeEventListener("pagehide", this.leaving);
    this.cancel(true);
    clearInterval(this.timer);
  }

  info(name) {
    return this.games.find((g) => g.name === name);
  }

  render() {
    const saved = settings().quick || {};
    const game = el("select#qp-game", { "data-testid": "qp-game", "aria-label": "Game" },
      this.games.map((g) => el("option", { value: g.name }, g.title || g.name)));
    if (this.info(saved.game)) game.value = saved.game;
    const rules = el("select#qp-rules", { "data-testid": "qp-rules", "aria-label": "Rules" });
    const players = el("select#qp-players", { "data-testid": "qp-players", "aria-label": "Players" });
    const bots = el("select#qp-bots", { "data-testid": "qp-bots", "aria-label": "Computer players" },
      BOTS.map(([v, t]) => el("option", { value: v }, t)));
    bots.value = saved.bots ?? "30";
    const clock = el("select#qp-clock", { "data-testid": "qp-clock", "aria-label": "Clock" },
      clockChoices(this.me).map(([v, t]) => el("option", { value: v === null ? "" : v }, t)));
    clock.value = saved.clock ?? "";
    if (clock.selectedIndex < 0) clock.value = "";
    const rated = this.me ? el("input#qp-rated", { type: "checkbox", "data-testid": "qp-rated", checked: !!saved.rated }) : null;
    const fillRules = () => {
      const g = this.info(game.value);
      clear(rules).append(...g.rulesets.map((r) => el("option", { value: r.name }, r.name.replace(/_/g, " "))));
      if (saved.game === g.name && saved.rules) rules.value = saved.rules;
      if (rules.selectedIndex < 0) rules.selectedIndex = 0;
      fillPlayers();
    };
    const fillPlayers = () => {
      const g = this.info(game.value);
      const r = g.rulesets.find((x) => x.name === rules.value);
      const fixed = r && r.options.players;
      const counts = fixed ? [fixed] : g.players;
      clear(players).append(...counts.map((n) => el("option", { value: n }, `${n} players`)));
      const dflt = (g.options.find((o) => o.name === "players") || {}).default;
      players.value = String(counts.includes(saved.players) && saved.game === g.name ? saved.players : fixed || dflt || counts[0]);
      players.closest(".qp-field").hidden = counts.length < 2;
    };
    game.addEventListener("change", fillRules);
    rules.addEventListener("change", fillPlayers);
    this.form = { game, rules, players, bots, clock, rated };
    const field = (label, input, extra = "") => el(`label.qp-field${extra}`, el("span", label), input);
    const go = el("button.primary.big", { type: "submit", "data-testid": "quick-play-button" }, "Quick play");
    this.go = go;
    const form = el("form.qp-form", { onsubmit: (ev) => { ev.preventDefault(); this.start(); } },
      field("Game", game), field("Rules", rules), field("Players", players),
      field("Clock", clock), field("Computer players join", bots),
      this.me ? el("label.qp-field.qp-check", rated, el("span", "Rated (accounts only)")) : null,
      el("div.qp-go", go));
    clear(this.node).append(
      el("div.qp-head", el("h2", "Quick play"),
        el("p.muted", "Play the next people looking for the same game. Computer players take the seats still empty when you say.")),
      form, this.status,
      el("h3", "Looking for a game now"), this.list);
    fillRules();
    this.renderSeeks();
  }

  body() {
    const f = this.form;
    const g = this.info(f.game.value);
    const options = { ruleset: f.rules.value };
    const body = { game: g.name, options, players: Number(f.players.value) };
    if (f.clock.value) body.clock = { seconds_per_move: Number(f.clock.value), on_timeout: "bot" };
    if (f.bots.value !== "") body.bots_after = Number(f.bots.value);
    if (f.rated && f.rated.checked) body.rated = true;
    saveSettings({ quick: { game: g.name, rules: f.rules.value, players: body.players, bots: f.bots.value,
      clock: f.clock.value, rated: !!body.rated } });
    return body;
  }

  /** Seek ``body`` (by default the form's): seated at once, or wait. */
  async start(body) {
    if (this.seeking) return;
    const b = body || this.body();
    if (!this.me) {
      const name = this.guestName();
      if (name) b.name = name;
    }
    this.go.disabled = true;
    try {
      const res = await api("/seeks", b);
      this.seeking = { seek: res.seek, token: res.token, started: Date.now(), body: b };
      this.follow(res);
    } catch (e) {
      this.go.disabled = false;
      toast(e.message, "error");
    }
  }

  follow(res) {
    if (res.status === "matched") {
      this.seeking = null;
      rememberSeat(res.table, res.seat, res.seat_token);
      location.hash = `#/table/${encodeURIComponent(res.table)}`;
      return;
    }
    if (res.status !== "waiting") {
      this.stop(res.status === "expired" ? "Nobody came in time: the search stopped. Try again?" : "");
      return;
    }
    clearInterval(this.timer);
    this.timer = setInterval(() => this.poll(), 1000);
    this.showWaiting();
  }

  async poll() {
    const s = this.seeking;
    if (!s || this.polling) return;
    this.polling = true;
    try {
      const res = await api(`/seeks/${encodeURIComponent(s.seek)}?token=${encodeURIComponent(s.token)}`);
      if (this.seeking === s) this.follow(res);
    } catch (e) {
      if (e.status && e.status < 500 && this.seeking === s) this.stop(e.message);
    } finally {
      this.polling = false;
    }
  }

  showWaiting() {
    const s = this.seeking;
    if (!s) return;
    const g = this.info(s.body.game);
    const waited = ago((Date.now() - s.started) / 1000);
    const bots = s.body.bots_after;
    const left = bots === undefined ? "" : Math.max(0, Math.ceil(bots - (Date.now() - s.started) / 1000));
    clear(this.status).append(el("div.qp-waiting", { "data-testid": "seeking" },
      el("span.qp-spinner", { "aria-hidden": "true" }),
      el("span", `Looking for players for ${g.title || g.name}… ${waited}`,
        bots === undefined ? "" : left > 0 ? ` · computer players in ${left} s` : " · seating computer players"),
      el("button.small", { type: "button", "data-testid": "qp-cancel", onclick: () => this.cancel() }, "Cancel")));
  }

  stop(message) {
    this.seeking = null;
    clearInterval(this.timer);
    this.go.disabled = false;
    clear(this.status);
    if (message) this.status.append(el("p.muted", message));
    this.renderSeeks();
  }

  async cancel(leaving = false) {
    const s = this.seeking;
    if (!s) return;
    const path = `/api/seeks/${encodeURIComponent(s.seek)}?token=${encodeURIComponent(s.token)}`;
    if (leaving) { // the page is going: tell the server without waiting for it
      this.seeking = null;
      fetch(path, { method: "DELETE", keepalive: true }).catch(() => {});
      return;
    }
    try {
      const res = await api(path.slice(4), undefined, "DELETE");
      this.stop("");
      return res;
    } catch (e) {
      if (e.code === "already_matched") this.poll(); // seated meanwhile: go to the table
      else this.stop("");
    }
    return null;
  }

  /** The lobby socket's seeks: shown, and our own seek asked about at once if it left the list. */
  setSeeks(list) {
    this.seeks = list;
    if (this.seeking && !list.some((s) => s.id === this.seeking.seek)) this.poll();
    this.renderSeeks();
  }

  renderSeeks() {
    const box = clear(this.list);
    if (this.seeking) this.showWaiting();
    if (!this.seeks.length) {
      box.append(el("p.muted", "Nobody right now. Press Quick play and the next one to come sits with you."));
      return;
    }
    box.append(el("ul.table-list", this.seeks.map((s) => {
      const g = this.info(s.game);
      const mine = this.seeking && this.seeking.seek === s.id;
      const who = s.rating !== null ? `${s.name} (${s.rating})` : s.name;
      const details = [rulesWords(g, s.options), s.rated ? "rated" : "casual", clockWords(s.clock),
        s.bots_after === null ? "people only" : "bots welcome"].join(" · ");
      const blocked = (s.rated || (s.clock && s.clock.seconds_per_move > 600)) && !this.me; // accounts only
      const action = mine ? el("span.chip.qp-you", "you")
        : el("button.small.primary", { type: "button", "data-seek": s.id, disabled: blocked || !!this.seeking,
          title: blocked ? "Log in to play rated or slow games" : "Sit down with them",
          onclick: () => this.start(this.bodyLike(s)) }, "Play");
      return el("li.table-row.seek-row", { "data-seek-row": s.id },
        el("span.t-game", g ? g.title || g.name : s.game),
        el("span.t-seats", el("b", who), ` · ${details} · waiting ${ago(s.waited)}`), action);
    })));
  }

  /** A seek that sits down with the listed one ``s``: its game, options, rated, players and clock. */
  bodyLike(s) {
    const body = { game: s.game, options: s.options, players: s.players };
    if (s.clock) body.clock = s.clock;
    if (s.rated) body.rated = true;
    const bots = this.form.bots.value;
    if (bots !== "") body.bots_after = Number(bots);
    return body;
  }
}

/** Your tables (GET /api/me/tables, or the lobby socket's ``mine``): your turn first, marked. */
export function yourTables(list, games, { compact = false } = {}) {
  const title = (name) => (games.find((g) => g.name === name) || {}).title || name;
  const turns = list.filter((t) => t.your_turn).length;
  document.title = turns ? `(${turns}) gamester — your turn` : "gamester — Penneech, Piquesept, Pentyrch";
  if (!list.length) return el("p.muted", "No tables yet: press Quick play, or start one below.");
  const shown = compact ? list.filter((t) => t.status !== "over").slice(0, 6) : list;
  if (!shown.length) return el("p.muted", "No game going on right now.");
  return el("ul.table-list", { "data-testid": "your-tables" }, shown.map((t) => {
    const others = opponents(games.find((g) => g.name === t.game), t.names || [], t.seat);
    const state = t.status === "over" ? "over" : t.status === "waiting" ? "waiting for players"
      : t.your_turn ? null : "their turn";
    return el(`li.table-row.mine${t.your_turn ? ".your-turn" : ""}`, { "data-table": t.id },
      el("span.t-game", title(t.game)),
      put(el("span.t-seats"), t.your_turn ? el("b.turn-mark", { "data-testid": "your-turn" }, "Your turn") : null,
        `${t.your_turn ? " · " : ""}vs ${others}`, state ? ` · ${state}` : "",
        t.rated ? " · rated" : "", t.private ? " · private" : "", ` · ${ago(Date.now() / 1000 - t.updated)} ago`),
      el(`a.button.small${t.your_turn ? ".primary" : ""}`, {
        href: t.status === "over" ? `#/replay/${encodeURIComponent(t.id)}?seat=${t.seat}` : `#/table/${encodeURIComponent(t.id)}`,
      }, t.status === "over" ? "Replay" : t.your_turn ? "Play" : "Open"));
  }));
}
