// Each game's rules, from the project's own rules documents, rendered in the app.

import { api, games } from "./api.js";
import { markdown } from "./markdown.js";
import { clear, el } from "./ui.js";

export class RulesScreen {
  constructor(root, name) {
    this.root = root;
    this.start(name);
  }

  destroy() {}

  async start(name) {
    clear(this.root).append(el("p.loading", "Loading the rules…"));
    let all;
    let doc;
    try {
      all = await games();
      doc = await api(`/games/${encodeURIComponent(name)}/rules`);
    } catch (e) {
      clear(this.root).append(el("div.panel.error-panel", el("h2", "No rules found"), el("p", e.message)));
      return;
    }
    const body = el("article.rules-text", { "data-testid": "rules" });
    body.innerHTML = markdown(doc.markdown || "");
    clear(this.root).append(el("div.rules-page",
      el("nav.rules-nav", all.map((g) => el(`a.button.small${g.name === name ? ".primary" : ""}`, { href: `#/rules/${g.name}` }, g.title || g.name)),
        el("a.button.small", { href: `#/?game=${encodeURIComponent(name)}` }, "Play it")),
      body));
  }
}
