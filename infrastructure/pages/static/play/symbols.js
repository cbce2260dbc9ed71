// A cell as the API writes it ("WILD", "COIN:5", "CANDY:MAJOR") -> the sprite that draws it, its
// words for a screen reader (which always hold the cell's own string) and the value shown on it.

// beside this module, under the same contents-named prefix (cached with it)
export const SPRITE = new URL("./symbols.svg", import.meta.url).pathname;
const SVG = "http://www.w3.org/2000/svg";

const NAMES = {
  WITCH: "Witch", GHOST: "Ghost", BAT: "Bat", CAT: "Black Cat", A: "Ace", K: "King", Q: "Queen",
  J: "Jack", TEN: "Ten", WILD: "Wild", SCATTER: "Scatter", NGC: "Normal Game Collector",
  COLLECTOR: "Collector", EMPTY: "empty", "": "spinning",
};
const BONUS = { HW: "Hold & Win", FS: "Free Spins" };

// context: { stake, jackpots (rules.jackpots_x_stake), money (minor -> text) }
export function describeCell(cell, context) {
  const text = String(cell || "");
  const [kind, value] = text.split(":");
  if (kind === "COIN") {
    const worth = Number(value) * context.stake;
    return { sprite: "COIN", css: "coin", badge: context.money(worth),
      label: text + ": Golden Coin worth " + value + " × stake (" + context.money(worth) + ")" };
  }
  if (kind === "CANDY") {
    const times = context.jackpots ? context.jackpots[value] : null;
    const worth = times ? context.money(times * context.stake) : "";
    return { sprite: "CANDY", css: "candy candy-" + String(value).toLowerCase(), badge: value,
      label: text + ": Jackpot Candy " + value + (worth ? " (" + worth + ")" : "") };
  }
  if (kind === "BOOSTER") {
    return { sprite: "BOOSTER", css: "booster", badge: value === "HW" ? "H&W" : "FS",
      label: text + ": Booster for " + (BONUS[value] || value) };
  }
  const sprite = text === "" ? "BLANK" : text;
  const css = { WILD: "wild", SCATTER: "scatter", NGC: "ngc", COLLECTOR: "collector", EMPTY: "empty" }[text] || "symbol";
  return { sprite, css, badge: "", label: text ? text + ": " + (NAMES[text] || text) : "spinning" };
}

export function symbolSvg(sprite, label) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", sprite === "NGC" ? "0 0 100 200" : "0 0 100 100");
  if (label) {
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", label);
  } else {
    svg.setAttribute("aria-hidden", "true");
  }
  const use = document.createElementNS(SVG, "use");
  use.setAttribute("href", SPRITE + "#" + sprite);
  svg.appendChild(use);
  return svg;
}

export const PAYING = ["WITCH", "GHOST", "BAT", "CAT", "A", "K", "Q", "J", "TEN"];
export const symbolName = (name) => NAMES[name] || name;
