// A round's recorded steps played out on the board, in the order GAME_RULES.md section 3 gives:
// the landed screen, Wild Reels, the Clover Moon Swap, line wins, the Normal Game Collector,
// boosters, coins thrown to the Pumpkins and their activations, then Hold & Win, then Free Spins.
// The server has already settled the round: this only shows what it recorded.

import { pause, pulse, throwCoins } from "./animate.js";
import { symbolName } from "./symbols.js";

function lineMarks(step, paylines, marks = {}) {
  (step.line_wins || []).forEach((win) => {
    const rows = paylines[win.line - 1] || [];
    rows.forEach((row, reel) => { if (reel < win.count) add(marks, reel + 1, row, "hit"); });
  });
  return marks;
}

function add(marks, reel, row, name) {
  const key = reel + ":" + row;
  marks[key] = marks[key] ? marks[key] + " " + name : name;
}

function coinsOn(screen) {
  const coins = [];
  screen.forEach((reel, r) => reel.forEach((cell, row) => {
    if (String(cell).startsWith("COIN:")) coins.push({ reel: r + 1, row });
  }));
  return coins;
}

export class Presenter {
  // ui: { board, stage, caption, panel, money, rules }
  constructor(ui) {
    this.ui = ui;
  }

  say(text) {
    this.ui.caption.textContent = text;
  }

  panel(mode, lines) {
    const panel = this.ui.panel;
    panel.dataset.mode = mode;
    panel.hidden = !lines.length;
    panel.replaceChildren(...lines.map((line) => {
      const p = document.createElement("p");
      if (Array.isArray(line)) {
        const [label, value] = line;
        const l = document.createElement("span"); l.className = "label"; l.textContent = label;
        const v = document.createElement("strong"); v.textContent = value;
        p.append(l, " ", v);
      } else {
        p.textContent = line;
      }
      return p;
    }));
  }

  lineText(step) {
    const m = this.ui.money;
    return (step.line_wins || []).map((w) => "line " + w.line + ": " + w.count + " × " + symbolName(w.symbol) + " " + m(w.win)).join(" · ");
  }

  // land: the reels' landing (animate.spinReels), until: when the last reel may stop.
  async play(round, land, until) {
    const { board } = this.ui;
    const steps = round.steps || [];
    this.panel("base", []);
    board.setMode("base");
    board.resetPumpkins();
    const base = steps[0];
    await land(base ? (base.landed_screen || base.screen) : board.screen, until);
    if (base) await this.baseStep(base);
    const features = steps.slice(1);
    const beat = Math.max(90, Math.min(520, Math.floor(7000 / Math.max(1, features.length))));
    let fsLeft = base && base.free_spins_awarded ? base.free_spins_awarded : 0;
    let fsWon = 0, hwWon = 0, hwStarted = false;
    for (const step of features) {
      if (step.kind === "hold_and_win") {
        if (!hwStarted) { hwStarted = true; this.say("Hold & Win! Collectors cover the reels above the lit Pumpkins."); }
        hwWon += step.win || 0;
        await this.holdAndWinStep(step, hwWon, beat);
      } else if (step.kind === "free_spin") {
        if (hwStarted) { board.resetPumpkins(); hwStarted = false; }
        fsLeft = Math.max(0, fsLeft - 1);
        if (step.free_spins_left !== undefined) fsLeft = step.free_spins_left;
        fsWon += step.win || 0;
        await this.freeSpinStep(step, fsLeft, fsWon, beat);
      }
    }
    if (hwStarted) board.resetPumpkins();
  }

  async baseStep(step) {
    const { board, rules, money } = this.ui;
    const lines = rules.paylines || [];
    const marks = lineMarks(step, lines);
    const notes = [];
    if (step.wild_reels) {
      step.wild_reels.forEach((reel) => [0, 1, 2].forEach((row) => add(marks, reel, row, "wild-reel")));
      this.say("Wild Reels! Reel " + step.wild_reels.join(", ") + " turn wild.");
      board.show(step.screen, Object.fromEntries(Object.entries(marks).filter(([, v]) => v.includes("wild-reel"))));
      pulse(step.wild_reels.flatMap((reel) => [0, 1, 2].map((row) => board.cellAt(reel, row))));
      notes.push("Wild Reels on reel " + step.wild_reels.join(", "));
      await pause(600);
    }
    if (step.clover_moon_swap) {
      const swap = step.clover_moon_swap;
      (swap.positions || []).forEach(([reel, row]) => add(marks, reel, row, "swapped"));
      this.say("Clover Moon Swap! " + swap.positions.length + " symbols turn into " + symbolName(swap.symbol) + ".");
      board.show(step.screen, marks);
      pulse((swap.positions || []).map(([reel, row]) => board.cellAt(reel, row)));
      notes.push("Clover Moon Swap into " + symbolName(swap.symbol));
      await pause(700);
    }
    if (step.normal_game_collector) {
      (step.normal_game_collector.coins || []).forEach((c) => add(marks, c.reel, c.row, "collected"));
      notes.push("Normal Game Collector collects " + money(step.normal_game_collector.win));
    }
    board.show(step.screen, marks);
    if (step.normal_game_collector) {
      this.say("The Normal Game Collector collects every coin: " + money(step.normal_game_collector.win) + ".");
      pulse((step.normal_game_collector.coins || []).map((c) => board.cellAt(c.reel, c.row)));
      await pause(600);
    }
    if (step.booster) {
      const name = step.booster.bonus === "HW" ? "Hold & Win" : "Free Spins";
      notes.push("Booster: " + name + " × " + step.booster.multiplier);
    }
    const coins = coinsOn(step.screen);
    if (coins.length) {
      await throwCoins(board, this.ui.stage, coins);
      (step.pumpkins_activated || []).forEach((reel) => board.setPumpkin(reel, true));
      if (step.pumpkins_activated) notes.push("Pumpkin " + step.pumpkins_activated.join(", ") + " activated");
    }
    if (step.free_spins_awarded) notes.push(step.free_spins_awarded + " Free Spins won");
    const lineText = this.lineText(step);
    if (lineText) notes.unshift(lineText);
    this.say(notes.length ? notes.join(" · ") : (step.win ? "Win " + money(step.win) : "No win this spin."));
    if (step.line_wins && step.line_wins.length) {
      pulse(Object.keys(lineMarks(step, lines)).map((key) => board.cellAt(...key.split(":").map(Number))));
    }
    if (notes.length) await pause(500);
  }

  async holdAndWinStep(step, total, beat) {
    const { board, money } = this.ui;
    board.setMode("hold-and-win");
    const marks = {};
    (step.collectors || []).forEach((reel) => [0, 1, 2].forEach((row) => add(marks, reel, row, "collector-reel")));
    (step.collections || []).forEach((c) => add(marks, c.reel, c.row, "collected"));
    (step.jackpots || []).forEach((j) => add(marks, j.reel, j.row, "collected jackpot"));
    board.show(step.screen, marks);
    (step.pumpkins_activated || []).forEach((reel) => board.setPumpkin(reel, true));
    (step.collectors || []).forEach((reel) => board.setPumpkin(reel, true));
    const taken = (step.collections || []).map((c) => money(c.value) + (c.times > 1 ? " × " + c.times : ""));
    const lines = [
      ["Hold & Win", ""],
      ["respins left", String(step.respins_left)],
      ["multiplier", "× " + step.multiplier],
      ["collectors", (step.collectors || []).map((r) => "reel " + r).join(", ") || "–"],
      ["collected so far", money(total)],
    ];
    if (taken.length) lines.push(["this respin takes", taken.join(" + ")]);
    (step.jackpots || []).forEach((j) => lines.push(["jackpot", j.tier + " " + money(j.value)]));
    (step.jackpots_won || []).forEach((j) => lines.push(["JACKPOT WON", j.tier + " " + money(j.amount)]));
    this.panel("hold-and-win", lines);
    if (step.jackpots_won && step.jackpots_won.length) {
      this.say(step.jackpots_won.map((j) => j.tier + " JACKPOT " + money(j.amount)).join(" · "));
      this.ui.jackpot(step.jackpots_won);
      await pause(1200);
    } else if (taken.length || (step.jackpots && step.jackpots.length)) {
      pulse([...(step.collections || []), ...(step.jackpots || [])].map((c) => board.cellAt(c.reel, c.row)));
    }
    await pause(beat);
  }

  async freeSpinStep(step, left, total, beat) {
    const { board, money, rules } = this.ui;
    board.setMode("free-spins");
    const marks = lineMarks(step, rules.paylines || []);
    (step.wild_reels || []).forEach((reel) => [0, 1, 2].forEach((row) => add(marks, reel, row, "wild-reel")));
    ((step.clover_moon_swap || {}).positions || []).forEach(([reel, row]) => add(marks, reel, row, "swapped"));
    board.show(step.screen, marks);
    const lines = [["Free Spins", ""], ["spins left", String(left)], ["multiplier", "× " + step.multiplier],
      ["won in Free Spins", money(total)]];
    if (step.free_spins_awarded) lines.push(["retrigger", "+" + step.free_spins_awarded + " spins"]);
    this.panel("free-spins", lines);
    const notes = [];
    if (step.free_spins_awarded) notes.push("Retrigger! +" + step.free_spins_awarded + " Free Spins");
    if (step.wild_reels) notes.push("Wild Reels on reel " + step.wild_reels.join(", "));
    if (step.clover_moon_swap) notes.push("Clover Moon Swap into " + symbolName(step.clover_moon_swap.symbol));
    const lineText = this.lineText(step);
    if (lineText) notes.push(lineText + (step.multiplier !== 1 ? " × " + step.multiplier : ""));
    this.say("Free spin · " + (notes.join(" · ") || "no win"));
    await pause(step.free_spins_awarded ? Math.max(beat, 700) : beat);
  }
}
