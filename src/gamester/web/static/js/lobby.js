// The lobby: Quick play and the people looking for a game, your tables (js/quickplay.js); then choose a
// game, its rule set and options, who sits where, a clock, and start. Below: tables waiting for
// players (to join) and games being played (to watch), live through the lobby socket.

import { api, games, mySeat, rememberSeat } from "./api.js";
import { clear, el, put, saveSettings, settings, toast } from "./ui.js";
import { seatNames } from "./table.js";
import { currentUser } from "./people.js";
import { LobbySocket, QuickPlay, clockChoices, yourTables } from "./quickplay.js";

function stars(n) {
  return "★".repeat(n + 1) + "☆".repeat(Math.max(0, 3 - n));
}

function optionWords(options) {
  return Object.entries(options).map(([k, v]) => `${k.replace(/_/g, " ")} ${v}`).join(", ");
}

// A computer player in a seat's list, its level first (the list is narrow on a laptop, two seats a row):
// "★★☆☆ Casual (computer): plays by simple rules of thumb".
function botWords(agent) {
  const [level, ...rest] = agent.label.split(":");
  return `${stars(agent.strength)} ${level} (computer)${rest.length ? `:${rest.join(":")}` : ""}`;
}

// The option values (GET /api/games: an agent's cannot_play) that keep this computer player from the
// chosen options, or null: the server refuses such a seat, so the lobby does not offer it.
function refusal(agent, chosen) {
  return (agent.cannot_play || []).find((c) =>
    Object.entries(c.options).every(([k, v]) => String(chosen[k]) === String(v))) || null;
}

export class Lobby {
  constructor(root, params) {
    this.root = root;
    this.params = params;
    this.timer = null;
    this.start();
  }

  destroy() {
    clearInterval(this.timer);
    if (this.socket) this.socket.close();
    if (this.quick) this.quick.destroy();
  }

  async start() {
    clear(this.root).append(el("p.loading", "Loading the games…"));
    try {
      this.games = await games();
    } catch (e) {
      clear(this.root).append(el("div.panel.error-panel", el("h2", "The server cannot be reached"), el("p", e.message)));
      return;
    }
    this.me = await currentUser();
    const wanted = this.params.get("game");
    this.game = this.games.find((g) => g.name === wanted) || this.games[0];
    this.setup = el("section.panel.setup", { "data-testid": "setup" });
    this.tables = el("section.panel.tables", { "data-testid": "tables" });
    this.lessons = el("section.lessons", { "data-testid": "lessons" });
    const nameInput = el("input#player-name", {
      type: "text", maxlength: 40, value: settings().name, placeholder: "Your name", autocomplete: "nickname",
      "aria-label": "Your name", onchange: (ev) => saveSettings({ name: ev.target.value.trim() }),
    });
    this.quick = new QuickPlay(this.games, this.me, () => settings().name || nameInput.value.trim());
    this.mine = this.me ? el("section.panel.your-tables", { "data-testid": "your-tables-panel" },
      el("h2", "Your tables"), el("p.muted", "Loading…")) : null;
    clear(this.root).append(
      el("section.hero",
        el("h1", "Three forgotten card games, back on the table"),
        el("p", "Play Penneech, Piquesept and Pentyrch against the computer or with friends. ",
          this.me ? el("span.inline-name", { "data-testid": "playing-as" }, `Playing as ${this.me.name}.`)
            : el("label.inline-name", "Your name: ", nameInput))),
      el("div.game-tiles", { role: "tablist" }, this.games.map((g) => this.tile(g))),
      this.lessons,
      // Quick play (and your tables) beside the table form, above the lists: both on the first screen.
      el("div.lobby-columns", this.setup, el("div.lobby-live", this.quick.node, this.mine), this.tables));
    this.renderLessons();
    this.renderSetup();
    // Live: the lobby socket pushes the seeks and the tables; asked by hand only while it is down.
    this.socket = new LobbySocket((list) => this.quick.setSeeks(list), (msg) => this.showTables(msg));
    this.refreshTables();
    this.timer = setInterval(() => { if (!this.socket.open) this.refreshTables(); }, 8000);
  }

  // "Learn to play": one lesson per game, a fixed deal against the computer with the rules explained
  // as they come up.
  async renderLessons() {
    let list;
    try {
      list = (await api("/tutorials")).tutorials;
    } catch {
      return; // the lobby works without them
    }
    const title = (name) => (this.games.find((g) => g.name === name) || {}).title || name;
    const tile = (t) => {
      const what = t.title.replace(/^[^:]*:\s*/, "");
      return el("button.lesson-tile", {
        type: "button", "data-lesson": t.id, title: `${title(t.game)}: ${what}`,
        onclick: (ev) => this.startLesson(t, ev.currentTarget),
      }, el("span.tile-title", title(t.game)), el("span.tile-blurb", what));
    };
    // A game's lessons under its tile (side by side on a wide screen, where the tile above names the
    // game and each lesson shows only what it teaches).
    const games = [...new Set(list.map((t) => t.game))];
    clear(this.lessons).append(el("h2", "New to these games? Learn one in a deal"),
      el("div.lesson-tiles", games.map((g) => el("div.lesson-col", list.filter((t) => t.game === g).map(tile)))));
  }

  async startLesson(t, btn) {
    btn.disabled = true;
    const name = settings().name || this.root.querySelector("#player-name").value.trim();
    try {
      const res = await api(`/tutorials/${encodeURIComponent(t.id)}`, name ? { name } : {});
      rememberSeat(res.table, res.seat, res.token);
      location.hash = `#/table/${encodeURIComponent(res.table)}`;
    } catch (e) {
      toast(e.message, "error");
      btn.disabled = false;
    }
  }

  tile(g) {
    const active = g.name === this.game.name;
    return el(`button.game-tile${active ? ".active" : ""}`, {
      type: "button", role: "tab", "aria-selected": active ? "true" : "false", "data-game": g.name,
      onclick: () => {
        this.game = g;
        for (const t of this.root.querySelectorAll(".game-tile")) {
          t.classList.toggle("active", t.dataset.game === g.name);
          t.setAttribute("aria-selected", t.dataset.game === g.name ? "true" : "false");
        }
        this.renderSetup();
      },
    }, el("span.tile-title", g.title || g.name), el("span.tile-players", `${g.players.join(" or ")} players`),
    el("span.tile-blurb", g.blurb || ""));
  }

  renderSetup() {
    const g = this.game;
    const box = clear(this.setup);
    const form = el("form.setup-form", { onsubmit: (ev) => { ev.preventDefault(); this.create(); } });
    this.form = form;
    // Rule set
    const rsSelect = el("select#ruleset", { name: "ruleset", "data-testid": "ruleset" },
      g.rulesets.map((r) => el("option", { value: r.name }, r.name)));
    const rsInfo = el("p.rs-info");
    const showRs = () => {
      const r = g.rulesets.find((x) => x.name === rsSelect.value);
      clear(rsInfo);
      if (r) rsInfo.append(el("span", r.reading ? `${r.reading[0].toUpperCase()}${r.reading.slice(1)}.` : ""),
        r.source ? el("span.source", ` Source: ${r.source}.`) : "");
      this.renderOptionHints();
      if (this.seatBox) this.renderSeats(); // a rule set may change the number of players
    };
    rsSelect.addEventListener("change", showRs);
    // Options (the rule set's values unless changed)
    this.optionRows = [];
    const opts = el("div.options");
    for (const o of g.options) {
      if (o.name === "ruleset") continue;
      let input;
      if (o.choices && o.choices.length) {
        input = el("select", { name: o.name, "data-option": o.name },
          el("option", { value: "" }, "as the rule set says"),
          o.choices.map((c) => el("option", { value: String(c) }, String(c))));
      } else if (o.type === "bool") {
        input = el("select", { name: o.name, "data-option": o.name },
          el("option", { value: "" }, "as the rule set says"), el("option", { value: "true" }, "yes"),
          el("option", { value: "false" }, "no"));
      } else {
        input = el("input", { name: o.name, "data-option": o.name, type: o.type === "int" ? "number" : "text",
          placeholder: "as the rule set says" });
      }
      // The player count and which computer players can play follow the options.
      input.addEventListener("change", () => this.renderSeats());
      const hint = el("span.opt-default");
      this.optionRows.push({ o, input, hint });
      opts.append(el("div.opt", el("label", el("span.opt-name", o.name.replace(/_/g, " ")), input, hint),
        o.doc ? el("p.opt-doc", o.doc) : null));
    }
    this.seatBox = el("div.seats");
    this.seatSelects = []; // another game's seat choices do not carry over
    const clock = el("select#clock", { name: "clock" },
      clockChoices(this.me).map(([v, t]) => el("option", { value: v === null ? "" : v }, t)));
    const onTimeout = el("select#on-timeout", { name: "on_timeout" },
      el("option", { value: "bot" }, "a computer player moves for them"), el("option", { value: "forfeit" }, "they lose the game"));
    const access = el("select#access", { name: "access", "data-testid": "access" },
      el("option", { value: "invite" }, "friends I send a link to"),
      el("option", { value: "open" }, "anyone from the lobby"),
      el("option", { value: "private" }, "friends with a link; unlisted, watched by link only"));
    const showTimeout = () => { form.querySelector(".field.timeout").hidden = !clock.value; };
    clock.addEventListener("change", () => showTimeout());
    put(form, // put, not append: the Rated field is null for a guest, and append would print "null"
      el("h2", `New table: ${g.title || g.name}`),
      el("p.blurb", g.blurb || ""),
      el("div.field", el("label", { for: "ruleset" }, "Rule set"), rsSelect), rsInfo,
      el("details.more-options", el("summary", "Options"), opts),
      el("h3", "Seats"), this.seatBox,
      el("div.field-pair",
        el("div.field", el("label", { for: "clock" }, "Clock"), clock),
        el("div.field", el("label", { for: "access" }, "Who may sit down"), access),
        el("div.field.timeout", el("label", { for: "on-timeout" }, "When time runs out"), onTimeout)),
      this.me ? el("div.field", el("label", { for: "rated" }, "Rated"),
        el("label.rated-box", el("input#rated", { type: "checkbox", name: "rated", "data-testid": "rated" }),
          " every person at the table logs in; the result moves your rating")) : null,
      el("div.row", el("button.primary.big", { type: "submit", "data-testid": "start" }, "Start the game"),
        el("a.button", { href: `#/rules/${g.name}` }, `How to play ${g.title || g.name}`)));
    box.append(form);
    showTimeout();
    showRs();
    this.renderSeats();
  }

  renderOptionHints() {
    const g = this.game;
    const rs = g.rulesets.find((r) => r.name === this.form.ruleset.value);
    for (const { o, hint } of this.optionRows) {
      const v = rs && o.name in rs.options ? rs.options[o.name] : o.default;
      hint.textContent = ` (${Array.isArray(v) ? v.join(",") : v})`;
    }
  }

  playerCount() {
    const g = this.game;
    const row = this.optionRows.find((r) => r.o.name === "players");
    if (row && row.input.value) return Number(row.input.value);
    const rs = g.rulesets.find((r) => r.name === this.form.ruleset.value);
    if (rs && rs.options.players) return Number(rs.options.players);
    if (row) return Number(row.o.default);
    return g.players[0];
  }

  // Every option as the table would have it: typed, else the rule set's, else the default.
  chosenOptions() {
    const rs = this.game.rulesets.find((r) => r.name === this.form.ruleset.value);
    const out = {};
    for (const { o, input } of this.optionRows) {
      out[o.name] = input.value !== "" ? input.value : rs && o.name in rs.options ? rs.options[o.name] : o.default;
    }
    return out;
  }

  renderSeats() {
    const g = this.game;
    const n = this.playerCount();
    const chosen = this.chosenOptions();
    const agents = [...g.agents].sort((a, b) => a.strength - b.strength)
      .map((a) => ({ ...a, refused: refusal(a, chosen) }));
    const playable = agents.filter((a) => !a.refused);
    const best = playable[playable.length - 1];
    // A first game's opponent is a gentle one: the heuristic's level (two stars), not the strongest.
    const gentle = playable.find((a) => a.strength === 1) || playable.find((a) => a.strength > 0) || best;
    const before = (this.seatSelects || []).map((s) => s.value);
    const box = clear(this.seatBox);
    this.seatSelects = [];
    // The game names its seats (GET /api/games: seat_labels by player count).
    const names = (g.seat_labels || {})[String(n)] || [];
    const label = (i) => names[i] || `Seat ${i + 1}`;
    for (let i = 0; i < n; i++) {
      const sel = el("select", { "data-seat": i, "aria-label": `Seat ${i + 1}` },
        el("option", { value: "you" }, "You"),
        el("option", { value: "friend" }, "A friend (invite link)"),
        agents.map((a) => (a.refused
          ? el("option", { value: `agent:${a.spec}`, disabled: true, title: a.refused.why },
            `${botWords(a)} (cannot play ${optionWords(a.refused.options)})`)
          : el("option", { value: `agent:${a.spec}`, title: a.label }, botWords(a)))));
      // A choice made before the options changed stays while it is still offered; one the options
      // rule out falls back to the strongest that can play.
      const kept = before[i];
      const offered = kept && [...sel.options].some((o) => o.value === kept && !o.disabled);
      sel.value = offered ? kept : i === 0 ? "you" : `agent:${(kept && kept !== "you" ? best : gentle).spec}`;
      sel.addEventListener("change", () => {
        if (sel.value === "you") for (const s of this.seatSelects) if (s !== sel && s.value === "you") s.value = "friend";
      });
      this.seatSelects.push(sel);
      box.append(el("div.field.seat-field", el("label", label(i)), sel));
    }
    // Why a computer player is missing: the server would refuse it at this table.
    for (const a of agents.filter((x) => x.refused)) {
      box.append(el("p.opt-doc", { "data-testid": "not-offered", title: a.refused.why },
        `Not offered with ${optionWords(a.refused.options)}: ${a.label.split(":")[0]} (${a.refused.why}).`));
    }
  }

  async create() {
    const g = this.game;
    const options = { ruleset: this.form.ruleset.value };
    for (const { o, input } of this.optionRows) {
      if (input.value === "") continue;
      options[o.name] = o.type === "int" ? Number(input.value) : o.type === "bool" ? input.value === "true" : input.value;
    }
    const choice = this.seatSelects.map((s) => s.value);
    const seats = choice.map((c) => (c.startsWith("agent:") ? c.slice(6) : "human"));
    const secs = this.form.clock.value;
    const clock = secs ? { seconds_per_move: Number(secs), on_timeout: this.form.on_timeout.value } : null;
    const mine = choice.indexOf("you");
    const typed = this.root.querySelector("#player-name");
    const given = this.me ? this.me.name : settings().name || (typed ? typed.value.trim() : "");
    // A name matters only to the people at the table: playing alone against computer players needs none.
    const alone = !choice.includes("friend");
    const name = given || (alone ? "Player" : "");
    if (mine >= 0 && !name) {
      toast("Type your name at the top first.", "error");
      this.root.querySelector("#player-name").focus();
      return;
    }
    const btn = this.form.querySelector("button[type=submit]");
    btn.disabled = true;
    try {
      const body = { game: g.name, options, seats, clock };
      if (this.form.rated && this.form.rated.checked) body.rated = true;
      if (this.form.access.value === "open") body.open = true;
      if (this.form.access.value === "private") body.private = true;
      // The creator's seat is taken in the same request: nobody can sit down in between.
      if (mine >= 0) body.join = { seat: mine, name };
      const table = await api("/tables", body);
      if (mine >= 0) {
        if (!this.me && given) saveSettings({ name: given });
        rememberSeat(table.id, table.seat, table.token);
      }
      location.hash = `#/table/${encodeURIComponent(table.id)}`;
    } catch (e) {
      toast(e.message, "error");
      btn.disabled = false;
    }
  }

  async refreshTables() {
    try {
      const [waiting, playing, mine] = await Promise.all([api("/tables?status=waiting&limit=20"),
        api("/tables?status=playing&limit=20"), this.me ? api("/me/tables") : null]);
      this.showTables({ waiting: waiting.tables, playing: playing.tables, mine: mine && mine.tables });
    } catch {
      // the next round, or the socket, tries again
    }
  }

  showTables(msg) {
    if (this.mine && msg.mine) {
      clear(this.mine).append(el("h2", "Your tables"), yourTables(msg.mine, this.games, { compact: true }),
        el("a.small-link", { href: `#/player/${encodeURIComponent(this.me.name)}` }, "All your games"));
      // A game waiting for your move comes before Quick play.
      this.mine.classList.toggle("first", msg.mine.some((t) => t.your_turn));
    }
    const waiting = { tables: msg.waiting };
    const playing = { tables: msg.playing };
    const box = clear(this.tables);
    const title = (t) => (this.games.find((g) => g.name === t.game) || {}).title || t.game;
    const info = (t) => this.games.find((g) => g.name === t.game);
    const line = (t, action) => {
      const names = seatNames(t, info(t), null).map((n, i) => (t.seats[i].kind === "human" && !t.seats[i].name ? "open seat" : n));
      return el("li.table-row", el("span.t-game", title(t)), el("span.t-seats", names.join(" · ")), action);
    };
    const open = waiting.tables.filter((t) => t.seats.some((s) => s.kind === "human" && !s.name));
    box.append(el("h2", "Tables waiting for players"),
      open.length ? el("ul.table-list", { "data-testid": "waiting-tables" }, open.map((t) => line(t,
        mySeat(t.id) ? el("a.button.small", { href: `#/table/${encodeURIComponent(t.id)}` }, "Back to my seat")
          : t.open ? el("a.button.small.primary", { href: `#/table/${encodeURIComponent(t.id)}` }, "Join")
            // Its free seats are kept for the friends invited: anyone may still watch.
            : el("a.button.small", { href: `#/table/${encodeURIComponent(t.id)}`, title: "Seats kept for invited friends" },
              "Watch"))))
        : el("p.muted", "None right now — start one and invite a friend."),
      el("h2", "Games being played"),
      playing.tables.length ? el("ul.table-list", { "data-testid": "playing-tables" }, playing.tables.map((t) => line(t,
        el("a.button.small", { href: `#/table/${encodeURIComponent(t.id)}` }, mySeat(t.id) ? "Back to my seat" : "Watch"))))
        : el("p.muted", "Nobody is playing right now."));
  }
}
