// Movement animations the FLIP way: remember where keyed elements were, redraw, then slide each
// element from its old place (or from the place named by data-from) to its new one.

export function flipBefore(root) {
  const rects = new Map();
  for (const node of root.querySelectorAll("[data-flip]")) rects.set(node.dataset.flip, node.getBoundingClientRect());
  for (const node of root.querySelectorAll("[data-origin]")) rects.set(`origin:${node.dataset.origin}`, node.getBoundingClientRect());
  return rects;
}

export function flipAfter(root, rects) {
  for (const node of root.querySelectorAll("[data-flip]")) {
    let old = rects.get(node.dataset.flip);
    if (!old && node.dataset.from) old = rects.get(`origin:${node.dataset.from}`) || rects.get(node.dataset.from);
    if (!old) continue;
    const now = node.getBoundingClientRect();
    const dx = old.left + old.width / 2 - (now.left + now.width / 2);
    const dy = old.top + old.height / 2 - (now.top + now.height / 2);
    if (Math.abs(dx) < 2 && Math.abs(dy) < 2) continue;
    node.animate(
      [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "translate(0, 0)" }],
      { duration: 420, easing: "cubic-bezier(.2,.7,.3,1)" },
    );
  }
}
