// The board: 5 reels of 3 cells (the `cell` hooks, reel by reel, top to bottom) and the five
// Pumpkins under them. It draws a screen, marks wins, and turns into the Hold & Win board.

import { describeCell, symbolSvg } from "./symbols.js";

export class Board {
  constructor(root, pumpkinRow, context) {
    this.root = root;
    this.context = context;
    this.reels = [];
    this.cells = [];
    this.screen = null;
    root.replaceChildren();
    for (let r = 0; r < 5; r++) {
      const reel = document.createElement("div");
      reel.className = "reel";
      const window_ = document.createElement("div");
      window_.className = "reel-window";
      const strip = document.createElement("div");
      strip.className = "strip";
      window_.appendChild(strip);
      reel.appendChild(window_);
      const cells = [];
      for (let row = 0; row < 3; row++) {
        const cell = document.createElement("div");
        cell.dataset.role = "cell";
        cell.dataset.reel = String(r + 1);
        cell.dataset.row = String(row);
        cell.className = "cell";
        strip.appendChild(cell);
        cells.push(cell);
        this.cells.push(cell);
      }
      this.reels.push({ element: reel, window: window_, strip, cells });
      root.appendChild(reel);
    }
    pumpkinRow.replaceChildren();
    this.pumpkins = [];
    for (let r = 0; r < 5; r++) {
      const pumpkin = document.createElement("div");
      pumpkin.dataset.role = "pumpkin";
      pumpkin.className = "pumpkin";
      pumpkinRow.appendChild(pumpkin);
      this.pumpkins.push(pumpkin);
      this.setPumpkin(r + 1, false);
    }
  }

  drawCell(element, cell) {
    const info = describeCell(cell, this.context);
    element.className = "cell " + info.css;
    element.dataset.cell = String(cell || "");
    const nodes = [symbolSvg(info.sprite, info.label)];
    if (info.badge) {
      const badge = document.createElement("span");
      badge.className = "badge";
      badge.setAttribute("aria-hidden", "true");
      badge.textContent = info.badge;
      nodes.push(badge);
    }
    element.replaceChildren(...nodes);
  }

  // A screen: 5 reels of 3 cells. marks: {"reel:row": css class}.
  show(screen, marks = {}) {
    this.screen = screen;
    screen.forEach((reel, r) => reel.forEach((cell, row) => {
      const element = this.reels[r].cells[row];
      this.drawCell(element, cell);
      const mark = marks[(r + 1) + ":" + row];
      if (mark) mark.split(" ").forEach((name) => element.classList.add(name));
    }));
    this.markNgc(screen);
  }

  // The Normal Game Collector covers two rows of one reel: draw it once, across both.
  markNgc(screen) {
    screen.forEach((reel, r) => {
      const first = reel.indexOf("NGC");
      if (first >= 0 && reel[first + 1] === "NGC") {
        this.reels[r].cells[first].classList.add("ngc-top");
        this.reels[r].cells[first + 1].classList.add("ngc-bottom");
      }
    });
  }

  blank() {
    this.show([0, 1, 2, 3, 4].map(() => ["", "", ""]));
  }

  setMode(mode) {
    this.root.dataset.mode = mode;
  }

  setPumpkin(reel, active) {
    const pumpkin = this.pumpkins[reel - 1];
    pumpkin.classList.toggle("active", active);
    const label = "Pumpkin " + reel + (active ? ": activated" : ": waiting for coins");
    pumpkin.replaceChildren(symbolSvg(active ? "PUMPKIN-LIT" : "PUMPKIN", label));
    pumpkin.dataset.active = String(active);
  }

  resetPumpkins() {
    for (let r = 1; r <= 5; r++) this.setPumpkin(r, false);
  }

  cellAt(reel, row) {
    return this.reels[reel - 1].cells[row];
  }
}
