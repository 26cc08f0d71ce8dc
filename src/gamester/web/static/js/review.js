// The review of a finished game (POST/GET /api/tables/{id}/review): every decision of one seat, the
// move played against the best agent's, each with the chance of winning (or, for a game of places, the
// share of the best result) estimated from that seat's own view, and why each marked move falls short.
// Asked for once, then polled until the server has it; a replay of that seat shows the marks too.

import { api, tablePath } from "./api.js";
import { clear, el, sleep, withCards } from "./ui.js";

const pct = (p) => `${Math.round(p * 100)}%`;
const NS = "http://www.w3.org/2000/svg";

function svgEl(tag, attrs) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

/** The chance of winning after each decision: the move played (solid), the best move (dashed), the
 * marked moves as dots (no library, no script in the page). */
function chanceChart(steps) {
  const w = 600;
  const h = 150;
  const pad = 24;
  const x = (i) => pad + (steps.length > 1 ? (i * (w - 2 * pad)) / (steps.length - 1) : (w - 2 * pad) / 2);
  const y = (p) => h - pad - p * (h - 2 * pad);
  const svg = svgEl("svg", { viewBox: `0 0 ${w} ${h}`, class: "review-chart", role: "img",
    "data-testid": "review-chart", "aria-label": `Your chance of winning after each decision: ${steps.map((s) => pct(s.p_played)).join(", ")}` });
  for (const p of [0, 0.5, 1]) {
    svg.append(svgEl("line", { x1: pad, x2: w - pad, y1: y(p), y2: y(p), class: "grid" }));
    const t = svgEl("text", { x: 2, y: y(p) + 4, class: "axis" });
    t.textContent = pct(p);
    svg.append(t);
  }
  const path = (key) => steps.map((s, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(s[key]).toFixed(1)}`).join(" ");
  svg.append(svgEl("path", { d: path("p_best"), class: "best" }), svgEl("path", { d: path("p_played"), class: "played" }));
  steps.forEach((s, i) => {
    if (s.mark) svg.append(svgEl("circle", { cx: x(i), cy: y(s.p_played), r: 5, class: s.mark }));
  });
  return svg;
}

/** What the numbers of a review are, in a sentence. */
function measureText(review) {
  return review.measure === "share"
    ? "Each number is your expected share of the best result (100% is first place, 0% last), estimated from what you could see at each move, never from the hidden cards."
    : "Chances of winning are estimated from what you could see at each move, never from the hidden cards.";
}

/** Whether the judge's search chose another move that the review's worlds rate no higher than the
 * one played (the judge decides from worlds of its own, so its "best" can read below yours). */
function noBetter(st) {
  return st.best !== st.action && st.p_best <= st.p_played;
}

/** Draw a done review into box (text only: moves are in the game's notation). ``stepLink(i)``, when
 * given, is the replay's address at the position after action i: each move links there. */
export function drawReview(box, review, pretty, stepLink = null) {
  clear(box);
  const s = review.summary;
  const acc = s.accuracy === null ? "no decisions to review" : `accuracy ${pct(s.accuracy)}`;
  const word = review.measure === "share" ? "share" : "chance";
  box.append(el("h3", `Review of your play (Seat ${review.seat + 1})`),
    el("p.review-summary", { "data-testid": "review-summary" },
      `${acc} · ${s.mistakes} mistake${s.mistakes === 1 ? "" : "s"} · ${s.blunders} blunder${s.blunders === 1 ? "" : "s"}`));
  if (s.lesson_moves) {
    box.append(el("p.muted", { "data-testid": "review-lesson" }, review.steps.length
      ? `The lesson chose ${s.lesson_moves} of your moves; only the ${review.steps.length} choices it left to you are judged here.`
      : "The lesson chose every one of your moves, so there is nothing of yours to judge: review a game of your own next."));
  }
  box.append(el("p.muted", measureText(review)));
  const lim = review.limited; // the server's time budget: fewer worlds, or only the first decisions
  if (lim) {
    const part = lim.reviewed < lim.decisions ? `only your first ${lim.reviewed} of ${lim.decisions} decisions, ` : "";
    box.append(el("p.muted", { "data-testid": "review-limited" },
      `A long game: this review covers ${part}with as few as ${lim.worlds} deals imagined per move, so it is rougher.`));
  }
  if (!review.steps.length) return;
  box.append(chanceChart(review.steps),
    el("p.muted.chart-key", `Solid: your ${word} after the move you played. Dashed: after the best move. Dots: mistakes and blunders, each with why below.`,
      review.steps.some(noBetter) ? ` A faint best move is the judge's choice that the review's worlds rate no higher than yours: your move was as good.` : null));
  const rows = review.steps.flatMap((st) => {
    const num = stepLink ? el("a", { href: stepLink(st.index + 1), title: "See it in the replay" }, String(st.index + 1))
      : String(st.index + 1);
    const row = el(`tr${st.mark ? `.${st.mark}` : ""}`, { "data-index": st.index },
      el("td", num),
      el("td", pretty(st.action)),
      el(`td${noBetter(st) ? ".no-better" : ""}`, st.best === st.action ? "the same" : pretty(st.best)),
      el("td", pct(st.p_played)),
      el("td", pct(st.p_best)),
      el("td.mark-cell", st.mark));
    if (!st.mark || !st.why) return [row];
    return [row, el(`tr.why-row.${st.mark}`, el("td", { colspan: 6, "data-testid": "review-why" },
      el("span.why-label", st.mark === "blunder" ? "Blunder: " : "Mistake: "), withCards(st.why)))];
  });
  box.append(el("div.review-scroll", el("table.review-table", { "data-testid": "review-table" },
    el("thead", el("tr", ["Move", "You played", "Best", `Your ${word}`, `Best's ${word}`].map((h) => el("th", h)),
      el("th.mark-cell", ""))),
    el("tbody", rows))));
}

/** Ask for the review of seat at table id and wait for it, showing progress in box. */
export async function fetchReview(id, seat, box, pretty, isClosed, stepLink = null) {
  clear(box).append(el("p.muted", { "data-testid": "review-working" }, "Reviewing your moves… (this takes a few seconds)"));
  try {
    await api(tablePath(id, "/review"), { seat });
    for (let wait = 500; !isClosed(); wait = Math.min(3000, wait * 1.5)) {
      const r = await api(tablePath(id, "/review", `seat=${seat}`));
      if (r.status === "done") {
        drawReview(box, r, pretty, stepLink);
        remember(id, seat);
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

// The reviews this browser has seen done, so that a replay asks only for those (asking for one never
// requested is a 404, which a page should not provoke).
const REVIEWED = "gamester.reviewed";

function remember(id, seat) {
  try {
    const seen = JSON.parse(localStorage.getItem(REVIEWED) || "[]").filter((k) => k !== `${id}/${seat}`);
    localStorage.setItem(REVIEWED, JSON.stringify([`${id}/${seat}`, ...seen].slice(0, 50)));
  } catch {
    // no storage: the replay simply shows no marks
  }
}

/** A done review of seat at table id that this browser has seen, or null: for the replay. */
export async function doneReview(id, seat, invite) {
  try {
    if (!JSON.parse(localStorage.getItem(REVIEWED) || "[]").includes(`${id}/${seat}`)) return null;
    const r = await api(tablePath(id, "/review", `seat=${seat}`, invite));
    return r.status === "done" ? r : null;
  } catch {
    return null;
  }
}
