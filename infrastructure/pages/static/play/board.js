// The board: 5 reels of 3 cells (the `cell` hooks, reel by reel, top to bottom) and the five
// Pumpkins under them. It draws a screen, marks wins, and turns into the Hold & Win board.
// Drawing is cheap: a cell's symbol is rebuilt only when the cell changes (marks are classes),
// and each reel keeps one strip of blurred symbols for the spin, made once, moved by transforms.

import { PAYING, describeCell, symbolSvg } from "./symbols.js";

const FILLERS = 3;  // one window of decorative symbols, twice: the strip loops seamlessly

function fillerStrip() {
  const strip = document.createElement("div");
  strip.className = "spinner";
  strip.setAttribute("aria-hidden", "true");
  // decoration only: the outcome is the server's, drawn once the answer is in
  const picked = Array.from({ length: FILLERS }, () => PAYING[Math.floor(Math.random() * PAYING.length)]);
  for (const name of [...picked, ...picked]) {
    const cell = document.createElement("div");
    cell.className = "filler";
    cell.appendChild(symbolSvg(name, ""));
    strip.appendChild(cell);
  }
  return strip;
}

// The Normal Game Collector covers two rows of one reel: drawn once, across both.
function ngcRows(reel) {
  const first = reel.indexOf("NGC");
  return first >= 0 && reel[first + 1] === "NGC" ? { [first]: " ngc-top", [first + 1]: " ngc-bottom" } : {};
}

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
      const spinner = fillerStrip();
      window_.append(strip, spinner);
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
      this.reels.push({ element: reel, window: window_, strip, spinner, cells });
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

  // One cell: its symbol (rebuilt only if the cell or the stake its value shows changed) and its
  // classes, set once (extra: marks such as " hit swapped").
  drawCell(element, cell, extra = "") {
    const text = String(cell || "");
    const info = describeCell(cell, this.context);
    const drawn = text + "|" + this.context.stake;
    if (element.dataset.drawn !== drawn) {
      element.dataset.drawn = drawn;
      element.dataset.cell = text;
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
    const css = "cell " + info.css + extra;
    if (element.className !== css) element.className = css;
  }

  // One reel of a screen, with its marks ({"reel:row": css classes}).
  drawReel(r, reel, marks = {}) {
    const ngc = ngcRows(reel);
    reel.forEach((cell, row) => {
      const mark = marks[(r + 1) + ":" + row];
      this.drawCell(this.reels[r].cells[row], cell, (mark ? " " + mark : "") + (ngc[row] || ""));
    });
  }

  // A screen: 5 reels of 3 cells. marks: {"reel:row": css class}.
  show(screen, marks = {}) {
    this.screen = screen;
    screen.forEach((reel, r) => this.drawReel(r, reel, marks));
  }

  blank() {
    this.show([0, 1, 2, 3, 4].map(() => ["", "", ""]));
  }

  setMode(mode) {
    if (this.root.dataset.mode !== mode) this.root.dataset.mode = mode;
  }

  setPumpkin(reel, active) {
    const pumpkin = this.pumpkins[reel - 1];
    if (pumpkin.dataset.active === String(active)) return;
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
