// People: who is logged in, the log-in / sign-up page, a player's page and the leaderboards.
// The session is an HttpOnly cookie the page never sees; /api/me says whose it is.

import { api, games } from "./api.js";
import { yourTables } from "./quickplay.js";
import { clear, el, toast } from "./ui.js";

let mePromise = null;

/** The logged-in account ({name}) or null; asked once, until login()/logout(). */
export function currentUser() {
  if (!mePromise) {
    mePromise = api("/session").then((s) => (s && s.name ? { name: s.name } : null)).catch(() => null);
  }
  return mePromise;
}

function changed() {
  mePromise = null;
  renderAccountSlot();
}

export async function logIn(name, password) {
  const res = await api("/session", { name, password });
  changed();
  return res;
}

export async function signUp(name, password) {
  await api("/accounts", { name, password });
  return logIn(name, password);
}

export async function logOut(everywhere) {
  await api(`/session${everywhere ? "?everywhere=true" : ""}`, undefined, "DELETE");
  changed();
}

/** The header's corner: "Log in", or the account's name (its page) and "Log out". */
export async function renderAccountSlot() {
  const slot = document.getElementById("account-slot");
  if (!slot) return;
  const me = await currentUser();
  clear(slot);
  if (!me) {
    slot.append(el("a", { href: "#/login", "data-testid": "login-link" }, "Log in"));
    return;
  }
  slot.append(
    el("a", { href: `#/player/${encodeURIComponent(me.name)}`, "data-testid": "me-link" }, me.name),
    el("button.link-button", {
      type: "button", "data-testid": "logout",
      onclick: async () => {
        try {
          await logOut(false);
          toast("Logged out.");
          location.hash = "#/";
        } catch (e) {
          toast(e.message, "error");
        }
      },
    }, "Log out"));
}

/** A form's submit handler: runs ``send`` with the form's button disabled meanwhile, and shows the
 * server's one line in ``error`` when it refuses. */
function submitting(error, send) {
  return async (ev) => {
    ev.preventDefault();
    error.textContent = "";
    const button = ev.currentTarget.querySelector("button");
    button.disabled = true;
    try {
      await send();
    } catch (e) {
      error.textContent = e.message;
    }
    button.disabled = false;
  };
}

// -- log in and sign up -------------------------------------------------------------------------
export class LoginScreen {
  constructor(root, params) {
    this.root = root;
    this.next = params.get("next") || "#/";
    this.render();
  }

  form(kind) {
    const signup = kind === "signup";
    const name = el("input", { type: "text", name: "name", required: true, minlength: 3, maxlength: 20,
      pattern: "[A-Za-z0-9_\\-]{3,20}", autocomplete: "username", "data-testid": `${kind}-name` });
    const password = el("input", { type: "password", name: "password", required: true, minlength: signup ? 8 : 1,
      maxlength: 200, autocomplete: signup ? "new-password" : "current-password", "data-testid": `${kind}-password` });
    const error = el("p.form-error", { role: "alert", "data-testid": `${kind}-error` });
    const f = el("form.people-form", {
      onsubmit: submitting(error, async () => {
        await (signup ? signUp : logIn)(name.value.trim(), password.value);
        toast(signup ? `Welcome, ${name.value.trim()}.` : `Logged in as ${name.value.trim()}.`);
        location.hash = this.next;
      }),
    },
    el("h2", signup ? "New account" : "Log in"),
    el("label", "Name ", name),
    signup ? el("p.muted", "3 to 20 letters, digits, _ or -. Others see it at the table and on the leaderboards.") : null,
    el("label", "Password ", password),
    signup ? el("p.muted", "At least 8 characters.") : null,
    error,
    el("button.primary", { type: "submit", "data-testid": `${kind}-submit` }, signup ? "Create the account" : "Log in"));
    return f;
  }

  render() {
    clear(this.root).append(el("section.people-page",
      el("p", "An account is optional: guests play as before. With one, your seats follow you to any device, ",
        "and rated games give you a rating in each game."),
      el("div.people-columns", el("div.panel", this.form("login")), el("div.panel", this.form("signup")))));
  }
}

// -- a player's page ---------------------------------------------------------------------------
const fmt = (x) => Math.round(x);

/** A small SVG line of the ratings after each rated table (no script, no library). */
function chart(points) {
  const NS = "http://www.w3.org/2000/svg";
  const w = 320;
  const h = 90;
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("class", "rating-chart");
  svg.setAttribute("role", "img");
  const values = [1500, ...points.map((p) => p.rating)];
  const lo = Math.min(...values) - 20;
  const hi = Math.max(...values) + 20;
  const x = (i) => 6 + (i * (w - 12)) / Math.max(1, values.length - 1);
  const y = (v) => h - 6 - ((v - lo) * (h - 12)) / (hi - lo);
  svg.setAttribute("aria-label", `Rating after each rated game: ${values.map(fmt).join(", ")}`);
  const line = document.createElementNS(NS, "polyline");
  line.setAttribute("points", values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" "));
  line.setAttribute("class", "rating-line");
  svg.append(line);
  values.forEach((v, i) => {
    const dot = document.createElementNS(NS, "circle");
    dot.setAttribute("cx", x(i).toFixed(1));
    dot.setAttribute("cy", y(v).toFixed(1));
    dot.setAttribute("r", "2.5");
    dot.setAttribute("class", "rating-dot");
    svg.append(dot);
  });
  return svg;
}

function resultWord(t) {
  if (t.status !== "over") return t.status === "waiting" ? "waiting" : "playing";
  if (!t.returns) return "over";
  const mine = t.returns[t.seat];
  const best = Math.max(...t.returns);
  if (t.returns.every((r) => r === mine)) return "draw";
  return mine === best ? "won" : "lost";
}

export class PlayerScreen {
  constructor(root, name, params = new URLSearchParams()) {
    this.root = root;
    this.name = name;
    this.table = params.get("table"); // the table the player came from (a report names it)
    this.start();
  }

  async start() {
    clear(this.root).append(el("p.loading", "Loading the player…"));
    let p;
    let all;
    try {
      [p, all] = await Promise.all([api(`/players/${encodeURIComponent(this.name)}`), games()]);
    } catch (e) {
      clear(this.root).append(el("div.panel.error-panel", el("h2", "No such player"), el("p", e.message),
        el("a.button", { href: "#/" }, "Back to the lobby")));
      return;
    }
    const title = (g) => (all.find((x) => x.name === g) || {}).title || g;
    const ratings = Object.entries(p.ratings);
    const rows = ratings.length
      ? el("table.ratings", { "data-testid": "ratings" },
        el("thead", el("tr", el("th", "Game"), el("th", "Rating"), el("th", "±"), el("th", "Rated games"), el("th", ""))),
        el("tbody", ratings.map(([g, r]) => el("tr", { "data-game": g },
          el("td", el("a", { href: `#/leaderboard/${encodeURIComponent(g)}` }, title(g))),
          el("td.num", fmt(r.rating)), el("td.num", fmt(r.deviation)), el("td.num", r.games),
          el("td", chart(p.history.filter((x) => x.game === g)))))))
      : el("p.muted", "No rated games yet.");
    const recent = p.recent.length
      ? el("ul.table-list", { "data-testid": "recent" }, p.recent.map((t) => el("li.table-row",
        el("span.t-game", title(t.game)),
        el("span.t-seats", `${resultWord(t)}${t.rated ? " · rated" : ""} · ${new Date(t.created * 1000).toLocaleDateString()}`),
        el("a.button.small", { href: t.status === "over" ? `#/replay/${encodeURIComponent(t.id)}?seat=${t.seat}`
          : `#/table/${encodeURIComponent(t.id)}` }, t.status === "over" ? "Replay" : "Open"))))
      : el("p.muted", "No games yet.");
    const me = await currentUser();
    const everywhere = me && me.name === p.name ? el("button.small", { "data-testid": "logout-everywhere",
      onclick: async () => {
        try {
          await logOut(true);
          toast("Logged out on every device.");
          location.hash = "#/";
        } catch (e) {
          toast(e.message, "error");
        }
      } }, "Log out everywhere") : null;
    const own = me && me.name === p.name;
    const mine = own ? el("div.panel", { "data-testid": "own-tables" }, el("h2", "Your tables"), el("p.muted", "Loading…")) : null;
    const blocks = own ? el("div.panel", { "data-testid": "blocks-panel" }, el("h2", "Blocked players")) : null;
    clear(this.root).append(el("section.people-page", { "data-testid": "player-page" },
      el("div.panel", el("div.player-head", el("h1", p.name), me && !own ? safetyTools(p.name, this.table) : null),
        el("h2", "Ratings"), rows, everywhere),
      mine,
      el("div.panel", el("h2", "Recent games"), recent),
      blocks,
      own ? accountPanel() : null));
    if (own) {
      api("/me/tables").then((r) => clear(mine).append(el("h2", "Your tables"), yourTables(r.tables, all)))
        .catch((e) => clear(mine).append(el("h2", "Your tables"), el("p.form-error", e.message)));
      renderBlocks(blocks);
    }
  }
}

/** On someone else's page: Block (or Unblock) and Report. A block hides their chat from you and keeps
 * you two from one table; a report goes to the server's moderator. */
function safetyTools(name, table) {
  const box = el("div.safety", { "data-testid": "safety" });
  const draw = (blocked) => {
    const toggle = el(blocked ? "button.small" : "button.small.danger", { type: "button", "data-testid": blocked ? "unblock" : "block",
      onclick: async () => {
        try {
          if (blocked) await api(`/me/blocks/${encodeURIComponent(name)}`, undefined, "DELETE");
          else await api("/me/blocks", { name });
          toast(blocked ? `${name} is not blocked any more.` : `${name} is blocked: you will not see their chat or share a table.`);
          draw(!blocked);
        } catch (e) {
          toast(e.message, "error");
        }
      } }, blocked ? "Unblock" : "Block");
    const reason = el("textarea", { maxlength: 1000, rows: 3, required: true, "data-testid": "report-reason",
      placeholder: "What happened? (the moderator reads this)" });
    const error = el("p.form-error", { role: "alert" });
    const report = el("details.report", el("summary", { "data-testid": "report" }, "Report"),
      el("form.people-form", { onsubmit: async (ev) => {
        ev.preventDefault();
        error.textContent = "";
        try {
          await api("/reports", table ? { name, table, reason: reason.value } : { name, reason: reason.value });
          report.open = false;
          reason.value = "";
          toast("Thank you: the report is sent to the moderator.");
        } catch (e) {
          error.textContent = e.message;
        }
      } }, el("label", `Report ${name}${table ? " (at that table)" : ""}`, reason), error,
      el("button.small", { type: "submit", "data-testid": "report-send" }, "Send the report")));
    clear(box).append(toggle, report);
    if (blocked) box.append(el("span.chip.blocked-chip", { "data-testid": "blocked-mark" }, "blocked"));
  };
  api("/me/blocks").then((r) => draw(r.blocks.some((b) => b.name.toLowerCase() === name.toLowerCase())))
    .catch(() => draw(false));
  return box;
}

/** On your own page: who you block, each with Unblock. */
async function renderBlocks(box) {
  let list;
  try {
    list = (await api("/me/blocks")).blocks;
  } catch (e) {
    box.append(el("p.form-error", e.message));
    return;
  }
  clear(box).append(el("h2", "Blocked players"), list.length
    ? el("ul.table-list", { "data-testid": "blocked-list" }, list.map((b) => el("li.table-row",
      el("span.t-game", el("a", { href: `#/player/${encodeURIComponent(b.name)}` }, b.name)),
      el("span.t-seats", `since ${new Date(b.since * 1000).toLocaleDateString()}`),
      el("button.small", { type: "button", onclick: async () => {
        await api(`/me/blocks/${encodeURIComponent(b.name)}`, undefined, "DELETE").catch((e) => toast(e.message, "error"));
        renderBlocks(box);
      } }, "Unblock"))))
    : el("p.muted", "Nobody. Block someone from their page (their name in a chat, a table or a leaderboard)."));
}

/** A form of password fields whose submit runs ``send`` (its values by name); errors shown in it. */
function passwordForm(testid, fields, label, send, danger = false) {
  const error = el("p.form-error", { role: "alert", "data-testid": `${testid}-error` });
  const inputs = fields.map(([name, text, auto]) => [name, text, el("input", { type: "password", name, required: true,
    minlength: auto === "new-password" ? 8 : 1, maxlength: 200, autocomplete: auto, "data-testid": `${testid}-${name}` })]);
  const f = el("form.people-form", {
    "data-testid": testid,
    onsubmit: submitting(error, async () => {
      await send(Object.fromEntries(inputs.map(([name, , input]) => [name, input.value])));
      f.reset();
    }),
  }, inputs.map(([, text, input]) => el("label", `${text} `, input)), error,
  el(danger ? "button.danger" : "button", { type: "submit", "data-testid": `${testid}-submit` }, label));
  return f;
}

/** On your own page: a new password (your other devices are logged out), or the account deleted. */
function accountPanel() {
  const change = passwordForm("change-password", [["old", "Current password", "current-password"],
    ["new", "New password", "new-password"]], "Change the password", async (v) => {
    const res = await api("/me/password", { old: v.old, new: v.new });
    toast(res.ended ? `Password changed; ${res.ended} other session(s) logged out.` : "Password changed.");
  });
  const remove = passwordForm("delete-account", [["password", "Password", "current-password"]],
    "Delete the account", async (v) => {
      if (!confirm("Delete your account? Your finished games stay, shown as played by “deleted”.")) return;
      await api("/me", { password: v.password }, "DELETE");
      changed();
      toast("Your account is deleted.");
      location.hash = "#/";
    }, true);
  return el("div.panel.account-panel", { "data-testid": "account-panel" }, el("h2", "Your account"),
    el("h3", "A new password"), el("p.muted", "Your other devices are logged out; this one stays."), change,
    el("h3", "Deleting the account"), el("p.muted", "Deleting the account removes its log-in and ratings; its finished games stay, "
      + "with its seats shown as “deleted”. A seat at a game still going must be left first."), remove);
}

// -- leaderboards ------------------------------------------------------------------------------
export class LeaderboardScreen {
  constructor(root, game) {
    this.root = root;
    this.game = game;
    this.start();
  }

  async start() {
    clear(this.root).append(el("p.loading", "Loading the leaderboard…"));
    let all;
    let board;
    try {
      all = await games();
      const game = this.game || all[0].name;
      board = await api(`/leaderboard/${encodeURIComponent(game)}`);
    } catch (e) {
      clear(this.root).append(el("div.panel.error-panel", el("h2", "No leaderboard"), el("p", e.message)));
      return;
    }
    const tabs = el("div.game-tabs", all.map((g) => el(`a.button${g.name === board.game ? ".primary" : ""}`,
      { href: `#/leaderboard/${encodeURIComponent(g.name)}` }, g.title || g.name)));
    const list = board.players.length
      ? el("table.ratings", { "data-testid": "leaderboard" },
        el("thead", el("tr", el("th", "#"), el("th", "Player"), el("th", "Rating"), el("th", "±"), el("th", "Rated games"))),
        el("tbody", board.players.map((p, i) => el("tr",
          el("td.num", i + 1), el("td", el("a", { href: `#/player/${encodeURIComponent(p.name)}` }, p.name)),
          el("td.num", fmt(p.rating)), el("td.num", fmt(p.deviation)), el("td.num", p.games)))))
      : el("p.muted", "Nobody has played a rated game of this yet.");
    const title = (all.find((g) => g.name === board.game) || {}).title || board.game;
    clear(this.root).append(el("section.people-page",
      el("div.panel", el("h1", `Leaderboard: ${title}`), tabs, list,
        el("p.muted", "Glicko-2 ratings: everyone starts at 1500 ± 350; the ± narrows as you play rated games."))));
  }
}
