// Playing cards drawn as SVG by the app itself (no image files): pips for 2-10, framed court cards,
// a patterned back. Colours come from CSS (.sC .sD .sH .sS), so the four-colour deck is one class.

const NS = "http://www.w3.org/2000/svg";
const W = 250;
const H = 350;

// Suit shapes in a 100 x 100 box.
const SUIT_SHAPES = {
  H: '<path d="M50 92 C22 66 4 48 4 29 C4 14 16 4 29 4 C39 4 46 10 50 19 C54 10 61 4 71 4 C84 4 96 14 96 29 C96 48 78 66 50 92 Z"/>',
  D: '<path d="M50 2 C60 20 74 36 90 50 C74 64 60 80 50 98 C40 80 26 64 10 50 C26 36 40 20 50 2 Z"/>',
  S: '<path d="M50 3 C62 22 96 40 96 62 C96 76 86 84 74 84 C65 84 58 79 54 72 C55 84 60 92 70 97 L30 97 C40 92 45 84 46 72 C42 79 35 84 26 84 C14 84 4 76 4 62 C4 40 38 22 50 3 Z"/>',
  C: '<circle cx="50" cy="26" r="21"/><circle cx="26" cy="58" r="21"/><circle cx="74" cy="58" r="21"/>' +
    '<path d="M45 50 L55 50 C55 74 60 88 70 97 L30 97 C40 88 45 74 45 50 Z"/>',
};

const RANK_LABEL = { A: "A", K: "K", Q: "Q", J: "J", T: "10" };
const COURT_NAME = { K: "King", Q: "Queen", J: "Jack" };
const SUIT_WORD = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };

// Pip centres (x, y) for the number cards; pips below the middle are drawn upside down.
const L = 76, M = 125, R = 174;
const PIPS = {
  2: [[M, 72], [M, 278]],
  3: [[M, 72], [M, 175], [M, 278]],
  4: [[L, 72], [R, 72], [L, 278], [R, 278]],
  5: [[L, 72], [R, 72], [M, 175], [L, 278], [R, 278]],
  6: [[L, 72], [R, 72], [L, 175], [R, 175], [L, 278], [R, 278]],
  7: [[L, 72], [R, 72], [M, 123], [L, 175], [R, 175], [L, 278], [R, 278]],
  8: [[L, 72], [R, 72], [M, 123], [L, 175], [R, 175], [M, 227], [L, 278], [R, 278]],
  9: [[L, 72], [R, 72], [L, 140], [R, 140], [M, 175], [L, 210], [R, 210], [L, 278], [R, 278]],
  10: [[L, 72], [R, 72], [M, 106], [L, 140], [R, 140], [L, 210], [R, 210], [M, 244], [L, 278], [R, 278]],
};

function pip(suit, cx, cy, size, flip = false) {
  const inner = flip ? `<g transform="rotate(180 50 50)">${SUIT_SHAPES[suit]}</g>` : SUIT_SHAPES[suit];
  return `<g class="pip" transform="translate(${cx - size / 2} ${cy - size / 2}) scale(${size / 100})">${inner}</g>`;
}

function corner(rank, suit) {
  const label = RANK_LABEL[rank] || rank;
  const fs = label.length > 1 ? 50 : 58;
  return `<text x="30" y="62" text-anchor="middle" font-size="${fs}" font-weight="700" ` +
    `font-family="DejaVu Sans, Arial, sans-serif" letter-spacing="${label.length > 1 ? -4 : 0}">${label}</text>` +
    pip(suit, 30, 92, 36);
}

function courtFace(rank, suit) {
  // A framed panel: the rank letter large, the suit above and below, a band in the suit colour.
  return `<rect x="62" y="46" width="126" height="258" rx="10" class="court-frame"/>` +
    `<rect x="70" y="54" width="110" height="242" rx="6" class="court-inner"/>` +
    pip(suit, 125, 92, 46) +
    `<text x="125" y="212" text-anchor="middle" font-size="118" font-weight="700" ` +
    `font-family="DejaVu Serif, Georgia, serif">${rank}</text>` +
    pip(suit, 125, 258, 46, true);
}

/** An SVG card for a code such as "QH" or "TD"; opts.mini draws a big value for small board cards. */
export function cardSVG(code, opts = {}) {
  const rank = code[0];
  const suit = code[1];
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("class", `card s${suit}${opts.mini ? " mini" : ""}`);
  svg.setAttribute("role", "img");
  const word = COURT_NAME[rank] || (rank === "A" ? "Ace" : RANK_LABEL[rank] || rank);
  svg.setAttribute("aria-label", `${word} of ${SUIT_WORD[suit]}`);
  let body = `<rect x="3" y="3" width="${W - 6}" height="${H - 6}" rx="18" class="face"/>`;
  if (opts.mini) {
    const label = RANK_LABEL[rank] || rank;
    body += `<text x="125" y="${label.length > 1 ? 170 : 178}" text-anchor="middle" ` +
      `font-size="${label.length > 1 ? 150 : 180}" font-weight="700" ` +
      `font-family="DejaVu Sans, Arial, sans-serif" letter-spacing="-8">${label}</text>` +
      pip(suit, 125, 258, 100);
  } else {
    body += corner(rank, suit);
    body += `<g transform="rotate(180 125 175)">${corner(rank, suit)}</g>`;
    if (COURT_NAME[rank]) body += courtFace(rank, suit);
    else if (rank === "A") body += pip(suit, 125, 175, 120);
    else {
      const n = rank === "T" ? 10 : Number(rank);
      for (const [x, y] of PIPS[n] || []) body += pip(suit, x, y, n >= 9 ? 50 : 56, y > 180);
    }
  }
  svg.innerHTML = body;
  return svg;
}

/** The back of a card (a hidden card). */
export function cardBack(opts = {}) {
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("class", `card back${opts.mini ? " mini" : ""}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "a face-down card");
  svg.innerHTML =
    `<defs><pattern id="bp" width="20" height="20" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">` +
    `<rect width="20" height="20" class="back-a"/><rect width="10" height="20" class="back-b"/></pattern></defs>` +
    `<rect x="3" y="3" width="${W - 6}" height="${H - 6}" rx="18" class="back-edge"/>` +
    `<rect x="18" y="18" width="${W - 36}" height="${H - 36}" rx="10" fill="url(#bp)"/>` +
    `<rect x="18" y="18" width="${W - 36}" height="${H - 36}" rx="10" class="back-line"/>`;
  return svg;
}

/** A small court-card token for Pentyrch stacks: letter and suit in a rounded badge. */
export function courtToken(code) {
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", "0 0 120 60");
  svg.setAttribute("class", `token s${code[1]}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `${COURT_NAME[code[0]] || code[0]} of ${SUIT_WORD[code[1]]}`);
  svg.innerHTML = `<rect x="2" y="2" width="116" height="56" rx="12" class="face"/>` +
    `<text x="38" y="46" text-anchor="middle" font-size="44" font-weight="700" ` +
    `font-family="DejaVu Serif, Georgia, serif">${code[0]}</text>` + pip(code[1], 84, 30, 38);
  return svg;
}
