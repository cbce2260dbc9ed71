// The paytable and rules, from GET /rules: pays in money at the chosen stake, the features, the
// jackpots (where the profile has them), and the RTP of the state the player is in now.

import { percent } from "./format.js";
import { symbolName, symbolSvg } from "./symbols.js";

function el(tag, text, css) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (css) node.className = css;
  return node;
}

export function stateOf(rules, player) {
  return (rules.states || []).find((s) => s.level === player.level
    && s.hold_and_win_multiplier === player.hold_and_win_multiplier
    && s.free_spins_multiplier === player.free_spins_multiplier);
}

export function renderRules(root, rules, player, stake, money) {
  const lineBet = stake / 10;
  const nodes = [];
  const state = player && stateOf(rules, player);
  const rtp = el("p", "", "rtp");
  rtp.textContent = state
    ? "Return to player in your current state (level " + player.level + "): " + percent(state.rtp)
    : "Return to player: " + percent(rules.target_rtp || 0);
  nodes.push(rtp);
  nodes.push(el("h3", "Paytable at a stake of " + money(stake) + " (10 lines, line bet " + money(lineBet) + ")"));
  const table = el("table", undefined, "data paytable");
  const head = el("tr");
  ["symbol", "3", "4", "5"].forEach((h) => head.appendChild(el("th", h === "symbol" ? h : h + " in a row", h === "symbol" ? "" : "num")));
  table.appendChild(el("thead")).appendChild(head);
  const body = table.appendChild(el("tbody"));
  Object.entries(rules.paytable || {}).forEach(([name, pays]) => {
    const row = el("tr");
    const cell = el("td");
    const icon = el("span", undefined, "icon");
    icon.appendChild(symbolSvg(name, name));
    cell.append(icon, " " + symbolName(name));
    row.appendChild(cell);
    ["3", "4", "5"].forEach((n) => row.appendChild(el("td", pays[n] ? money(pays[n] * lineBet) : "–", "num")));
    body.appendChild(row);
  });
  nodes.push(table);
  const features = [
    ["WILD", "Wild substitutes for every paying symbol. Wild Reels (level 1 on) turn 1 to 4 whole reels wild."],
    ["SCATTER", "3 Scatters (reels 1, 3, 5) award 10 Free Spins; in Free Spins 2 award 5 more and 3 award 10 more. Free Spins wins are multiplied by the Free Spins multiplier."],
    ["COIN", "Golden Coins carry " + (rules.coin_values_x_stake || []).join(", ") + " × stake. Each coin is thrown at the Pumpkin below its reel; an activated Pumpkin starts Hold & Win."],
    ["COLLECTOR", "Hold & Win: a Collector covers each reel above an activated Pumpkin and collects every coin that lands; 3 respins, reset by every coin or candy. Prizes are multiplied by the Hold & Win multiplier."],
    ["NGC", "Normal Game Collector (level 3 on): collects and pays every coin on the screen."],
    ["BOOSTER", "Booster (level 5): raises the Hold & Win or Free Spins multiplier by 0.5, up to 3."],
  ];
  nodes.push(el("h3", "Features"));
  const list = el("ul", undefined, "features");
  features.forEach(([sprite, text]) => {
    const item = el("li");
    const icon = el("span", undefined, "icon");
    icon.appendChild(symbolSvg(sprite, sprite));
    item.append(icon, el("span", text));
    list.appendChild(item);
  });
  const swap = el("li");
  swap.textContent = "Clover Moon Swap (level 2 on): when a spin wins nothing, symbols may swap into one paying symbol so that the new screen wins.";
  list.appendChild(swap);
  nodes.push(list);
  const unlocks = (rules.spin_progress || {}).unlocks || {};
  const perLevel = (rules.spin_progress || {}).spins_per_level || [];
  nodes.push(el("h3", "Spin Progress"));
  nodes.push(el("p", "Every normal spin fills the meter; each level unlocks a feature for good: "
    + Object.entries(unlocks).map(([level, name]) => "level " + level + " " + name + " (" + (perLevel[level - 1] || "?") + " spins)").join(", ") + "."));
  const jurisdiction = rules.jurisdiction || {};
  if (jurisdiction.jackpots !== false && rules.jackpots_x_stake) {
    nodes.push(el("h3", "Jackpots (from level 4)"));
    nodes.push(el("p", Object.entries(rules.jackpots_x_stake).map(([tier, x]) => tier + " " + money(x * stake)).join(" · ")
      + ". Grand when all five Pumpkins are lit in Hold & Win."));
  }
  if (rules.max_win && rules.max_win.x_stake) nodes.push(el("p", "Maximum win per round: " + rules.max_win.x_stake.toLocaleString("en") + " × stake."));
  (rules.disclosures || []).forEach((text) => nodes.push(el("p", text, "hint")));
  nodes.push(el("p", "Model " + (rules.model_version || ""), "hint mono"));
  root.replaceChildren(...nodes);
}
