// The session's rounds, newest first, at most LIMIT on the page (older ones stay checkable: the
// fairness check reads every round of the session). Each row: nonce, stake, win, the round's
// seed and client seed, its fairness mark (data-verified = pending | true | false) and a replay
// link made on demand (POST /rounds/{id}/replay-links).

export const LIMIT = 50;
const MARKS = { pending: "pending: checkable once the session closes", true: "✓ verified", false: "✗ NOT verified" };

export class History {
  constructor(list, api, money) {
    this.list = list;
    this.api = api;
    this.money = money;
    this.rounds = new Map();  // round_id -> the round (as the API answered it)
    this.marks = new Map();   // round_id -> "pending" | "true" | "false"
  }

  remember(round) {
    this.rounds.set(round.round_id, round);
  }

  add(round) {
    this.remember(round);
    if (this.list.querySelector(`[data-round-id="${CSS.escape(round.round_id)}"]`)) return;
    this.list.prepend(this.row(round));
    while (this.list.children.length > LIMIT) this.list.lastElementChild.remove();
  }

  row(round) {
    const item = document.createElement("li");
    item.dataset.role = "round";
    item.dataset.roundId = round.round_id;
    item.dataset.verified = this.marks.get(round.round_id) || "pending";
    const head = document.createElement("div");
    head.className = "round-head";
    const what = document.createElement("span");
    what.textContent = "#" + (round.nonce ?? "?") + " · stake " + this.money(round.stake) + " · win " + this.money(round.total_win);
    if (round.total_win > round.stake) what.classList.add("gain");
    const mark = document.createElement("span");
    mark.className = "mark";
    mark.textContent = MARKS[item.dataset.verified];
    const replay = document.createElement("button");
    replay.type = "button";
    replay.className = "small-button";
    replay.textContent = "replay link";
    replay.setAttribute("aria-label", "replay link for round " + round.round_id);
    replay.addEventListener("click", () => this.link(round.round_id, replay));
    head.append(what, mark, replay);
    const seeds = document.createElement("div");
    seeds.className = "round-seeds mono small";
    seeds.textContent = "round " + round.round_id + " · nonce " + (round.nonce ?? "–") + " · client seed “" + (round.client_seed ?? "") + "” · seed " + round.seed;
    item.append(head, seeds);
    return item;
  }

  async link(roundId, button) {
    button.disabled = true;
    const answer = await this.api.replayLink(roundId);
    if (answer.status === 201 && answer.data && answer.data.url) {
      const a = document.createElement("a");
      a.href = answer.data.url;
      a.target = "_blank";
      a.rel = "noopener";
      a.className = "button-link";
      a.textContent = "open replay";
      button.replaceWith(a);
    } else {
      button.disabled = false;
      button.textContent = "no link (" + answer.status + ")";
    }
  }

  mark(roundId, verified) {
    this.marks.set(roundId, String(verified));
    const row = this.list.querySelector(`[data-round-id="${CSS.escape(roundId)}"]`);
    if (!row) return;
    row.dataset.verified = String(verified);
    row.querySelector(".mark").textContent = MARKS[String(verified)];
  }
}
