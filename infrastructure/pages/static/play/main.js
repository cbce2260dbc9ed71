// /play: the game client for one session token, through the JSON API only. The token arrives
// pasted or as #token=... (also in a tab already on /play), leaves the address bar at once and is
// kept for this tab only (sessionStorage), so a reload finds the session and its history again.

import { Api, errorOf, rules as loadRules } from "./api.js";
import { Board } from "./board.js";
import { ask, openPanel, refuse } from "./dialogs.js";
import { newClientSeed, validClientSeed } from "./fairness.js";
import { money as formatMoney } from "./format.js";
import { History, LIMIT } from "./history.js";
import { Presenter } from "./presenter.js";
import { renderRules } from "./rules_view.js";
import { spinReels } from "./animate.js";
import { Status } from "./status.js";
import { closeAndVerify, showCommitment, verifyClosed } from "./verify_flow.js";

const $ = (id) => document.getElementById(id);
const role = (name) => document.querySelector(`[data-role="${name}"]`);
const TOKEN_KEY = "pumpkin.play.token";
const STRICT_PROFILES = ["uk", "de"];  // no celebration of a win not above the stake

const game = {
  api: null, rules: null, currency: "EUR", session: null, player: null, board: null,
  presenter: null, history: null, status: null, minRoundMs: 0, readyAt: 0, busy: false,
  closed: false, strict: false,
};
const money = (minor) => formatMoney(minor, game.currency);

function stake() {
  return Number(role("stake").value);
}

function ready() {
  const wait = game.readyAt - performance.now();
  role("spin").disabled = game.busy || game.closed || wait > 0;
  if (!game.busy && !game.closed && wait > 0) setTimeout(ready, wait + 10);
}

function presentWin(round) {
  const box = $("win");
  const celebrate = game.strict ? round.total_win > round.stake : round.total_win > 0;
  box.classList.remove("celebrate");
  box.textContent = round.total_win > 0 ? "Win " + money(round.total_win) : "No win";
  if (celebrate) {
    box.textContent = "WIN " + money(round.total_win) + "!";
    void box.offsetWidth;
    box.classList.add("celebrate");
  }
  box.dataset.celebrated = String(celebrate);
}

function showUnlock(round) {
  if (!(round.events || []).includes("LevelUnlocked")) return;
  const unlocks = (game.rules.spin_progress || {}).unlocks || {};
  const toast = $("unlock");
  toast.textContent = "Level " + round.level_after + " unlocked: " + (unlocks[round.level_after] || "new features") + "!";
  toast.hidden = false;
  setTimeout(() => { toast.hidden = true; }, 4000);
}

async function refreshPlayer() {
  if (game.closed) return;
  const answer = await game.api.player(game.session.player_id);
  if (answer.status === 200) {
    game.player = answer.data;
    game.status.player(answer.data);
  }
}

async function spin() {
  if (game.busy || game.closed || performance.now() < game.readyAt) return;
  const clientSeed = role("client-seed").value;
  if (!validClientSeed(clientSeed)) {
    await refuse({ code: "invalid_client_seed", message: "A client seed is 0 to 64 printable ASCII characters." });
    return;
  }
  game.busy = true;
  ready();
  $("win").textContent = "";
  const started = performance.now();
  const until = started + Math.max(game.minRoundMs, 900);
  const before = game.board.screen;
  const land = spinReels(game.board);
  try {
    const requestId = "play-" + newClientSeed();
    const answer = await game.api.spin(game.session.session_id, stake(), requestId, clientSeed);
    game.readyAt = performance.now() + game.minRoundMs;
    if (answer.status === 200) {
      const round = answer.data;
      await game.presenter.play(round, land, until);
      game.history.add(round);
      game.status.balance(round.balance_after);
      game.status.sessionFigures(round.session);
      presentWin(round);
      showUnlock(round);
      await refreshPlayer();
    } else {
      await land(before, performance.now());
      await refused(answer);
    }
  } catch (error) {
    await land(before, performance.now());
    await refuse({ code: "unreachable", message: "The service could not be reached: " + error });
  } finally {
    game.busy = false;
    ready();
  }
}

async function refused(answer) {
  const error = errorOf(answer);
  if (error.code === "reality_check_due") {
    const minutes = Math.floor(((game.status.session || {}).elapsed_seconds || 0) / 60);
    const keep = await ask("Reality check", error.message + " You have played for about " + minutes
      + " minutes; your net position is " + $("net").textContent + ".",
    [["Keep playing", true], ["Stop and close the session", false, true]]);
    const reply = await game.api.realityCheck(game.session.session_id, keep !== false);
    if (reply.status === 200 && keep === false) await sessionEnded();
    else if (reply.status !== 200) await refuse(errorOf(reply));
    return;
  }
  if (answer.status === 429) {
    const retry = Number(answer.headers.get("Retry-After") || 1);
    game.readyAt = performance.now() + retry * 1000;
  }
  await refuse(error);
  if (error.code === "session_closed" || error.code === "session_time_limit" || answer.status === 401) {
    await sessionEnded();
  }
}

async function sessionEnded() {
  game.closed = true;
  ready();
  await verifyClosed(game);
}

function fillStakes() {
  const picker = role("stake");
  const max = (game.rules.jurisdiction || {}).max_stake;
  picker.replaceChildren(...(game.rules.stakes || []).filter((s) => !max || s <= max).map((s) => {
    const option = document.createElement("option");
    option.value = String(s);
    option.textContent = money(s);
    return option;
  }));
  const preferred = [...picker.options].find((o) => o.value === "100");
  if (preferred) picker.value = "100";
}

async function loadHistory(roundIds) {
  const newest = roundIds.slice(-LIMIT);
  const rounds = await Promise.all(newest.map((id) => game.api.round(id)));
  rounds.filter((a) => a.status === 200).forEach((a) => game.history.add(a.data));
}

async function start(token) {
  game.api = new Api(token);
  const [rules, current] = await Promise.all([loadRules(), game.api.session()]);
  if (current.status !== 200) {
    $("token-error").textContent = "This token opens no session: " + errorOf(current).message;
    $("token-card").hidden = false;
    sessionStorage.removeItem(TOKEN_KEY);
    return;
  }
  game.rules = rules;
  game.session = current.data;
  game.currency = $("game").dataset.currency || "EUR";
  const jurisdiction = rules.jurisdiction || {};
  game.minRoundMs = Math.max(0, Number(jurisdiction.min_round_seconds || 0) * 1000);
  game.strict = STRICT_PROFILES.includes(jurisdiction.name);
  const context = { stake: 100, jackpots: rules.jackpots_x_stake, money };
  game.board = new Board($("board"), $("pumpkins"), context);
  game.board.blank();
  game.status = new Status(rules, money, game.currency);
  game.history = new History($("history"), game.api, money);
  game.presenter = new Presenter({ board: game.board, stage: $("stage"), caption: $("caption"),
    panel: $("feature"), money, rules, jackpot: (wins) => game.status.jackpotWon(wins) });
  fillStakes();
  context.stake = stake();
  game.status.jackpots(stake(), jurisdiction);
  role("stake").addEventListener("change", () => { context.stake = stake(); game.status.jackpots(stake(), jurisdiction); });
  const seedKey = "pumpkin.play.client-seed." + game.session.session_id;
  role("client-seed").value = sessionStorage.getItem(seedKey) || newClientSeed();
  role("client-seed").addEventListener("change", () => sessionStorage.setItem(seedKey, role("client-seed").value));
  sessionStorage.setItem(seedKey, role("client-seed").value);
  showCommitment(game.session);
  $("token-card").hidden = true;
  $("game").hidden = false;
  game.status.sessionFigures(game.session);
  game.closed = !game.session.open;
  ready();
  performance.mark("play-interactive");  // the game is drawn and can be played (bench/)
  if (game.closed) {
    await loadHistory(game.session.round_ids || []);
    await verifyClosed(game);
    return;
  }
  setInterval(() => game.status.tick(!game.closed), 1000);
  await Promise.all([refreshPlayer(), loadHistory(game.session.round_ids || [])]);
}

function takeToken(text) {
  const token = (text || "").trim();
  if (!token) return false;
  sessionStorage.setItem(TOKEN_KEY, token);
  return true;
}

function tokenFromHash() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const token = fragment.get("token");
  if (token) history.replaceState(null, "", location.pathname);  // the token leaves the address bar
  return token;
}

function onKey(event) {
  if (event.code !== "Space" && event.key !== " ") return;
  const target = event.target;
  const typing = target && (target.isContentEditable || ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName));
  if (typing || $("game").hidden || document.querySelector("dialog[open]")) return;
  event.preventDefault();  // no page scroll, no second click from a focused button
  if (event.type === "keydown" && !event.repeat) spin();
}

document.addEventListener("DOMContentLoaded", () => {
  $("token-form").addEventListener("submit", (event) => {
    event.preventDefault();
    if (takeToken($("token").value)) location.reload();
  });
  role("spin").addEventListener("click", spin);
  role("paytable").addEventListener("click", () => {
    renderRules($("rules-body"), game.rules, game.player, stake(), money);
    openPanel("rules-dialog");
  });
  $("rules-close").addEventListener("click", () => $("rules-dialog").close());
  role("close-verify").addEventListener("click", () => closeAndVerify(game, () => { game.closed = true; ready(); }));
  $("new-seed").addEventListener("click", () => {
    role("client-seed").value = newClientSeed();
    role("client-seed").dispatchEvent(new Event("change"));
  });
  $("other-token").addEventListener("click", () => { sessionStorage.removeItem(TOKEN_KEY); location.reload(); });
  document.addEventListener("keydown", onKey);
  document.addEventListener("keyup", onKey);
  window.addEventListener("hashchange", () => {
    if (takeToken(tokenFromHash())) location.reload();  // a new token: start again, cleanly
  });
  takeToken(tokenFromHash());
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) start(token);
  else $("token-card").hidden = false;
});
