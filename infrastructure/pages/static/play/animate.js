// Motion: the reels spin (compositor-only transforms through the Web Animations API, so frames
// stay cheap), stop one by one on the landed screen, and coins fly to the Pumpkins below.
// Every pause is awaited, so a round's presentation is one readable sequence.

import { symbolSvg } from "./symbols.js";

export const pause = (ms) => new Promise((done) => setTimeout(done, ms));
const reduced = () => window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
const LOOP_MS = 240;

// Starts every reel spinning (each reel's own strip of decorative symbols, made once with the
// board: a spin adds nothing to the page, and its motion is a transform the compositor runs);
// returns a function that lands `screen` and resolves when the last reel has stopped. `until`
// is the earliest time (performance.now()) the last reel may stop.
export function spinReels(board) {
  const spinning = board.reels.map((reel) => {
    reel.element.classList.add("spinning");
    const motion = reel.spinner.animate(
      [{ transform: "translateY(-50%)" }, { transform: "translateY(0)" }],
      { duration: LOOP_MS, iterations: Infinity, easing: "linear" });
    motion.currentTime = Math.random() * LOOP_MS;  // the reels do not spin in step
    return { reel, motion };
  });
  return async function land(screen, until) {
    const stagger = reduced() ? 0 : 140;
    const wait = until - performance.now() - stagger * 4;
    if (wait > 0) await pause(wait);
    board.screen = screen;
    for (let r = 0; r < 5; r++) {
      const { reel, motion } = spinning[r];
      motion.cancel();
      board.drawReel(r, screen[r]);
      reel.element.classList.remove("spinning");
      if (!reduced()) {
        reel.strip.animate([{ transform: "translateY(-14%)" }, { transform: "translateY(3%)" }, { transform: "translateY(0)" }],
          { duration: 220, easing: "ease-out" });
      }
      if (r < 4 && stagger) await pause(stagger);
    }
  };
}

// A Golden Coin thrown from its cell to the Pumpkin under its reel.
export async function throwCoins(board, stage, coins) {
  if (!coins.length) return;
  const origin = stage.getBoundingClientRect();
  const paths = coins.map(({ reel, row }) => [board.cellAt(reel, row).getBoundingClientRect(),
    board.pumpkins[reel - 1].getBoundingClientRect()]);  // every read before the first write
  const flights = paths.map(([from, to]) => {
    const coin = document.createElement("div");
    coin.className = "thrown-coin";
    coin.appendChild(symbolSvg("COIN", ""));
    stage.appendChild(coin);
    const x0 = from.left - origin.left + from.width / 2 - 14, y0 = from.top - origin.top + from.height / 2 - 14;
    const x1 = to.left - origin.left + to.width / 2 - 14, y1 = to.top - origin.top + to.height / 2 - 14;
    const motion = coin.animate([
      { transform: `translate(${x0}px, ${y0}px) scale(1)` },
      { transform: `translate(${(x0 + x1) / 2}px, ${Math.min(y0, y1) - 30}px) scale(1.2)`, offset: 0.45 },
      { transform: `translate(${x1}px, ${y1}px) scale(.6)` },
    ], { duration: reduced() ? 1 : 520, easing: "ease-in-out", fill: "forwards" });
    return motion.finished.then(() => coin.remove());
  });
  await Promise.all(flights);
}

// A short pulse on the cells that matter this step (wins, swaps, collections).
export function pulse(elements) {
  if (reduced()) return;
  elements.forEach((element) => element.animate(
    [{ transform: "scale(1)" }, { transform: "scale(1.08)" }, { transform: "scale(1)" }],
    { duration: 360, easing: "ease-out" }));
}
