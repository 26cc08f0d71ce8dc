// Small DOM helpers, settings and the words the three games share (names, suits).

export const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
export const SUIT_NAMES = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
export const RANK_WORDS = { A: "A", K: "K", Q: "Q", J: "J", T: "10" };

/** el("div.a.b", {attr: v, onclick: f}, child, "text", [more]) */
export function el(spec, attrs, ...children) {
  const [head, ...classes] = spec.split(".");
  const [tag, id] = head.split("#");
  const node = document.createElement(tag || "div");
  if (id) node.id = id;
  if (classes.length) node.className = classes.join(" ");
  if (attrs && (typeof attrs !== "object" || attrs instanceof Node || Array.isArray(attrs))) {
    children.unshift(attrs);
    attrs = null;
  }
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(node.dataset, v);
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(node, c);
    else node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Append children to node, skipping null/false and flattening arrays. */
export function put(node, ...children) {
  append(node, children);
  return node;
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

// -- settings ---------------------------------------------------------------------------------
const SETTINGS_KEY = "gamester.settings";
const DEFAULTS = { fourColour: false, animations: true, sounds: true, name: "" };

export function settings() {
  try {
    return { ...DEFAULTS, ...JSON.parse(localStorage.getItem(SETTINGS_KEY) || "{}") };
  } catch {
    return { ...DEFAULTS };
  }
}

export function saveSettings(patch) {
  const s = { ...settings(), ...patch };
  localStorage.setItem(SETTINGS_KEY, JSON.stringify(s));
  applySettings();
  return s;
}

export function applySettings() {
  const s = settings();
  document.documentElement.classList.toggle("four-colour", !!s.fourColour);
  document.documentElement.classList.toggle("no-anim", !s.animations);
}

export function animationsOn() {
  return settings().animations && !window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// -- card words -------------------------------------------------------------------------------
/** "QH" -> "Q♥" as a coloured span (suits coloured like the cards). */
export function cardText(code) {
  if (!code) return el("span", "a hidden card");
  const rank = RANK_WORDS[code[0]] || code[0];
  return el(`span.ct.s${code[1]}`, `${rank}${SUITS[code[1]]}`);
}

const CARD_CODE = /^[2-9TJQKA][CDHS]$/;

/** Is ``x`` a card code ("QH")? */
export function isCard(x) {
  return typeof x === "string" && CARD_CODE.test(x);
}

/** A move as a player reads it: a card code as the card (Q♥), anything else as it is. */
export function moveText(action) {
  return isCard(action) ? cardText(action) : action;
}

/** Text whose card codes ("the 7S", "play QS") are shown as cards, as the terminal prints them. */
export function withCards(text) {
  return text.split(/\b([2-9TJQKA][CDHS])\b/).map((part, i) => (i % 2 ? cardText(part) : part));
}

/** A list of card codes as spans separated by spaces. */
export function cardsText(codes) {
  const out = [];
  codes.forEach((c, i) => {
    if (i) out.push(" ");
    out.push(cardText(c));
  });
  return out;
}

export function suitText(letter) {
  return el(`span.ct.s${letter}`, `${SUIT_NAMES[letter]} ${SUITS[letter]}`);
}

export function plural(n, word, many) {
  return `${n} ${n === 1 ? word : many || word + "s"}`;
}

// -- toasts and notices -------------------------------------------------------------------------
export function toast(message, kind = "info") {
  let box = document.getElementById("toasts");
  if (!box) {
    box = el("div#toasts");
    document.body.append(box);
  }
  const t = el(`div.toast.${kind}`, { role: "status" }, message);
  box.append(t);
  setTimeout(() => t.remove(), kind === "error" ? 6000 : 3500);
}

export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Clipboard needs a secure context; fall back on a hidden textarea.
    const ta = el("textarea", { readonly: true }, text);
    ta.style.position = "fixed";
    ta.style.opacity = "0";
    document.body.append(ta);
    ta.select();
    let ok = false;
    try {
      ok = document.execCommand("copy");
    } catch {
      ok = false;
    }
    ta.remove();
    return ok;
  }
}
