// The review of a finished game (POST/GET /api/tables/{id}/review): every decision of one seat, the
// move played against the best agent's, each with the chance of winning it estimated from that seat's
// own view. Asked for once, then polled until the server has it.

import { api } from "./api.js";
import { clear, el, sleep } from "./ui.js";

const pct = (p) => `${Math.round(p * 100)}%`;

/** Draw a done review into box (text only: moves are in the game's notation). */
export function drawReview(box, review, pretty) {
  clear(box);
  const s = review.summary;
  const acc = s.accuracy === null ? "no decisions to review" : `accuracy ${pct(s.accuracy)}`;
  box.append(el("h3", "Review of your play"),
    el("p.review-summary", { "data-testid": "review-summary" },
      `${acc} · ${s.mistakes} mistake${s.mistakes === 1 ? "" : "s"} · ${s.blunders} blunder${s.blunders === 1 ? "" : "s"}`),
    el("p.muted", "Chances of winning are estimated from what you could see at each move, never from the hidden cards."));
  if (!review.steps.length) return;
  const rows = review.steps.map((st) => el(`tr${st.mark ? `.${st.mark}` : ""}`,
    el("td", String(st.index + 1)),
    el("td", pretty(st.action)),
    el("td", st.best === st.action ? "the same" : pretty(st.best)),
    el("td", pct(st.p_played)),
    el("td", pct(st.p_best)),
    el("td", st.mark)));
  box.append(el("div.review-scroll", el("table.review-table", { "data-testid": "review-table" },
    el("thead", el("tr", ["Move", "You played", "Best", "Your chance", "Best's chance", ""].map((h) => el("th", h)))),
    el("tbody", rows))));
}

/** Ask for the review of seat at table id and wait for it, showing progress in box. */
export async function fetchReview(id, seat, box, pretty, isClosed) {
  clear(box).append(el("p.muted", { "data-testid": "review-working" }, "Reviewing your moves… (this takes a few seconds)"));
  const path = `/tables/${encodeURIComponent(id)}/review`;
  try {
    await api(path, { seat });
    for (let wait = 500; !isClosed(); wait = Math.min(3000, wait * 1.5)) {
      const r = await api(`${path}?seat=${seat}`);
      if (r.status === "done") {
        drawReview(box, r, pretty);
        return;
      }
      if (r.status === "failed") {
        clear(box).append(el("p.error", r.message));
        return;
      }
      await sleep(wait);
    }
  } catch (e) {
    clear(box).append(el("p.error", e.message));
  }
}
