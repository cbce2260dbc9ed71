// The figures around the reels: balance, the Spin Progress meter (a progressbar), the two bonus
// multipliers, the session's net position, time played and spins, and the jackpot ladder.

import { duration, signedMoney } from "./format.js";

const $ = (id) => document.getElementById(id);
const role = (name) => document.querySelector(`[data-role="${name}"]`);
// written only when it changes: the clock ticks every second, and an unchanged text costs nothing
const text = (element, value) => { if (element.textContent !== value) element.textContent = value; };

export class Status {
  constructor(rules, money, currency) {
    this.rules = rules;
    this.money = money;
    this.currency = currency;
    this.session = null;
    this.sessionAt = 0;
  }

  balance(minor) {
    role("balance").textContent = this.money(minor);
  }

  player(player) {
    this.balance(player.balance);
    $("hw-mult").textContent = "× " + player.hold_and_win_multiplier;
    $("fs-mult").textContent = "× " + player.free_spins_multiplier;
    this.meter(player.level, player.spins_to_next_level);
    const ladder = $("jackpots");
    ladder.classList.toggle("locked", player.level < 4);
    ladder.setAttribute("aria-label", player.level < 4
      ? "Jackpots at this stake (they unlock at level 4)" : "Jackpots at this stake");
  }

  meter(level, left) {
    const perLevel = ((this.rules.spin_progress || {}).spins_per_level) || [10, 25, 50, 75, 100];
    const meter = role("meter");
    const top = left === null || left === undefined || level >= perLevel.length;
    const need = top ? 1 : perLevel[level];
    const done = top ? 1 : Math.max(0, need - left);
    meter.setAttribute("aria-valuemin", "0");
    meter.setAttribute("aria-valuemax", String(need));
    meter.setAttribute("aria-valuenow", String(done));
    const unlocks = (this.rules.spin_progress || {}).unlocks || {};
    const text = top ? "Level " + level + ": the meter is full"
      : "Level " + level + ": " + done + " of " + need + " spins to unlock " + (unlocks[level + 1] || "the next level");
    meter.setAttribute("aria-valuetext", text);
    $("meter-fill").style.transform = "scaleX(" + (done / need).toFixed(3) + ")";  // the compositor's, not layout's
    $("meter-text").textContent = text;
    $("level").textContent = String(level);
  }

  sessionFigures(session) {
    if (!session) return;
    this.session = session;
    this.sessionAt = Date.now();
    this.tick();
  }

  tick(open = true) {
    const s = this.session;
    if (!s) return;
    const extra = open ? (Date.now() - this.sessionAt) / 1000 : 0;
    text($("spins"), String(s.spins));
    const net = $("net");
    text(net, signedMoney(s.net, this.currency));
    const css = s.net < 0 ? "loss" : s.net > 0 ? "gain" : "";
    if (net.className !== css) net.className = css;
    text($("elapsed"), duration((s.elapsed_seconds || 0) + extra));
  }

  jackpots(stake, jurisdiction) {
    const ladder = $("jackpots");
    const tiers = this.rules.jackpots_x_stake;
    ladder.hidden = jurisdiction.jackpots === false || !tiers;
    if (ladder.hidden) return;
    ladder.replaceChildren(...Object.entries(tiers).map(([tier, times]) => {
      const item = document.createElement("li");
      item.dataset.tier = tier;
      const name = document.createElement("span");
      name.textContent = tier;
      const value = document.createElement("strong");
      value.textContent = this.money(times * stake);
      item.append(name, value);
      return item;
    }));
  }

  jackpotWon(wins) {
    wins.forEach(({ tier }) => {
      const item = document.querySelector(`#jackpots [data-tier="${tier}"]`);
      if (item) item.animate([{ background: "#ffcf5c" }, { background: "transparent" }], { duration: 2400 });
      if (item) item.classList.add("won");
    });
  }
}
