// The app: a hash router over the lobby, a table, a replay, the rules, log-in, players and
// leaderboards; the settings menu and the account corner.

import { Lobby } from "./lobby.js";
import { LeaderboardScreen, LoginScreen, PlayerScreen, renderAccountSlot } from "./people.js";
import { ReplayScreen } from "./replay.js";
import { RulesScreen } from "./rules.js";
import { TableScreen } from "./table.js";
import { applySettings, el, saveSettings, settings } from "./ui.js";

const root = document.getElementById("app");
let screen = null;

function route() {
  if (screen && screen.destroy) screen.destroy();
  screen = null;
  const hash = location.hash.replace(/^#\/?/, "");
  const [path, query] = hash.split("?");
  const params = new URLSearchParams(query || "");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  window.scrollTo(0, 0);
  if (parts[0] === "table" && parts[1]) screen = new TableScreen(root, parts[1], params);
  else if (parts[0] === "replay" && parts[1]) screen = new ReplayScreen(root, parts[1], params);
  else if (parts[0] === "rules" && parts[1]) screen = new RulesScreen(root, parts[1]);
  else if (parts[0] === "login") screen = new LoginScreen(root, params);
  else if (parts[0] === "player" && parts[1]) screen = new PlayerScreen(root, parts[1], params);
  else if (parts[0] === "leaderboard") screen = new LeaderboardScreen(root, parts[1] || null);
  else screen = new Lobby(root, params);
}

function settingsMenu() {
  const s = settings();
  const four = el("input", { type: "checkbox", id: "set-four", checked: s.fourColour,
    onchange: (ev) => saveSettings({ fourColour: ev.target.checked }) });
  const anim = el("input", { type: "checkbox", id: "set-anim", checked: s.animations,
    onchange: (ev) => saveSettings({ animations: ev.target.checked }) });
  const sounds = el("input", { type: "checkbox", id: "set-sounds", "data-testid": "sounds", checked: s.sounds,
    onchange: (ev) => saveSettings({ sounds: ev.target.checked }) });
  const pace = el("select", { id: "set-pace", "data-testid": "pace",
    onchange: (ev) => saveSettings({ pace: ev.target.value }) },
  el("option", { value: "fast" }, "fast"), el("option", { value: "normal" }, "normal"),
  el("option", { value: "slow" }, "slow"));
  pace.value = s.pace || "normal";
  return el("details.settings",
    el("summary", { "aria-label": "Settings", "data-testid": "settings" }, "⚙ Settings"),
    el("div.settings-box",
      el("label", four, " Four-colour deck (♦ blue, ♣ green)"),
      el("label", anim, " Animations"),
      el("label", sounds, " Sounds (a card played, your turn)"),
      el("label", "Pace of the other players ", pace, el("span.muted", " (a click on the table moves on)")),
      el("p.muted", "Keys: ← → choose a card, Enter plays it, 1–9 play the nth playable card, H asks for a hint.")));
}

applySettings();
document.getElementById("settings-slot").append(settingsMenu());
renderAccountSlot();
window.addEventListener("hashchange", route);
route();
