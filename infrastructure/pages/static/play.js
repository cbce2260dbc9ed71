// The /play page: a game client for one session token, through the JSON API only.
// Every value from the server is put in the page as text (never as HTML).
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const state = {
    token: "", sessionId: "", playerId: "", rules: null, minRoundMs: 0,
    lastSpinAt: 0, local: { spins: 0, staked: 0, won: 0, startedAt: 0 }, session: null,
    sessionAt: 0, busy: false,
  };
  const STEP_MS = 380;
  const KIND = { base: "Base game spin", free_spin: "Free spin", hold_and_win: "Hold & Win respin" };

  function money(minor) {
    if (typeof minor !== "number") return "–";
    return (minor / 100).toLocaleString("en", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  }
  function duration(seconds) {
    const s = Math.max(0, Math.floor(seconds));
    const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
    return (h ? h + "h " : "") + String(m).padStart(h ? 2 : 1, "0") + "m " + String(r).padStart(2, "0") + "s";
  }
  function say(text, kind) {
    const box = $("message");
    box.textContent = text || "";
    box.className = "message" + (kind ? " " + kind : "");
  }

  async function api(method, path, body) {
    const headers = { Authorization: "Bearer " + state.token };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "omit", cache: "no-store",
    });
    let data = null;
    try { data = await response.json(); } catch (_) { data = null; }
    return { status: response.status, data, headers: response.headers };
  }
  function refusal(answer) {
    const error = answer.data && answer.data.error;
    return error ? error.message + " (" + error.code + ")" : "The service answered " + answer.status + ".";
  }

  // -- reels ----------------------------------------------------------------------------------
  function cellLabel(cell) {
    const [name, value] = String(cell).split(":");
    if (name === "COIN") return { text: value + "×", css: "coin", title: "coin worth " + value + " × stake" };
    if (name === "CANDY") {
      const times = state.rules && state.rules.jackpots_x_stake ? state.rules.jackpots_x_stake[value] : null;
      return { text: value + (times ? " " + times + "×" : ""), css: "candy", title: value + " jackpot" };
    }
    if (name === "BOOSTER") return { text: "BOOST " + value, css: "booster", title: "bonus booster" };
    if (name === "COLLECTOR") return { text: "COLLECT", css: "collector", title: "collector" };
    const css = { WILD: "wild", SCATTER: "scatter", NGC: "ngc", COLLECTOR: "collector", EMPTY: "empty" }[name] || "symbol";
    return { text: String(cell).replace(/_/g, " "), css, title: String(cell) };
  }
  function drawScreen(screen, marks) {
    const table = document.createElement("table");
    table.className = "screen big";
    const rows = screen && screen.length ? screen[0].length : 0;
    for (let row = 0; row < rows; row++) {
      const tr = document.createElement("tr");
      screen.forEach((reel, r) => {
        const td = document.createElement("td");
        const label = cellLabel(reel[row]);
        td.textContent = label.text;
        td.title = label.title;
        td.className = label.css + (marks && marks[(r + 1) + ":" + row] ? " " + marks[(r + 1) + ":" + row] : "");
        tr.appendChild(td);
      });
      table.appendChild(tr);
    }
    const box = $("reels");
    box.replaceChildren(table);
  }
  function winMarks(step) {
    const marks = {};
    const lines = (state.rules && state.rules.paylines) || [];
    (step.line_wins || []).forEach((win) => {
      const line = lines[win.line - 1] || [];
      line.forEach((row, reel) => { if (reel < win.count) marks[(reel + 1) + ":" + row] = "hit"; });
    });
    (step.wild_reels || []).forEach((reel) => { for (let row = 0; row < 3; row++) marks[reel + ":" + row] = marks[reel + ":" + row] || "wild-reel"; });
    return marks;
  }
  function describe(step, index) {
    const parts = [(KIND[step.kind] || step.kind) + ": win " + money(step.win)];
    if (step.multiplier && step.multiplier !== 1) parts.push("× " + step.multiplier);
    (step.line_wins || []).forEach((w) => parts.push("line " + w.line + ": " + w.count + " × " + w.symbol + " pays " + money(w.win)));
    if (step.wild_reels) parts.push("Wild Reels on reels " + step.wild_reels.join(", "));
    if (step.clover_moon_swap) parts.push("Clover Moon Swap to " + step.clover_moon_swap.symbol);
    if (step.normal_game_collector) parts.push("Normal Game Collector collects " + money(step.normal_game_collector.win));
    if (step.booster) parts.push("Booster: " + step.booster.bonus + " × " + step.booster.multiplier);
    if (step.free_spins_awarded) parts.push(step.free_spins_awarded + " free spins awarded");
    if (step.pumpkins_activated) parts.push("pumpkins activated on reels " + step.pumpkins_activated.join(", "));
    if (step.respins_left !== undefined) parts.push(step.respins_left + " respins left");
    (step.jackpots_won || []).forEach((j) => parts.push(j.tier + " jackpot " + money(j.amount)));
    if (step.max_win_reached) parts.push("max win reached");
    return parts.join(" · ");
  }
  const pause = (ms) => new Promise((done) => setTimeout(done, ms));

  async function playOut(round) {
    const list = $("steps");
    list.replaceChildren();
    for (let i = 0; i < round.steps.length; i++) {
      const step = round.steps[i];
      if (step.landed_screen && JSON.stringify(step.landed_screen) !== JSON.stringify(step.screen)) {
        drawScreen(step.landed_screen, {});
        $("step-caption").textContent = "Landed…";
        await pause(STEP_MS);
      }
      drawScreen(step.screen, winMarks(step));
      const text = describe(step, i);
      $("step-caption").textContent = text;
      const item = document.createElement("li");
      item.textContent = text;
      list.appendChild(item);
      if (i < round.steps.length - 1) await pause(STEP_MS);
    }
  }

  // -- figures --------------------------------------------------------------------------------
  function showPlayer(player) {
    if (!player) return;
    $("balance").textContent = money(player.balance);
    $("level").textContent = String(player.level);
    $("meter").textContent = player.spins_to_next_level === null || player.spins_to_next_level === undefined
      ? "top level" : player.spins_to_next_level + " spins to next level";
    $("hw-mult").textContent = "× " + player.hold_and_win_multiplier;
    $("fs-mult").textContent = "× " + player.free_spins_multiplier;
  }
  function showSession() {
    const s = state.session || {
      spins: state.local.spins, net: state.local.won - state.local.staked,
      elapsed_seconds: state.local.startedAt ? (Date.now() - state.local.startedAt) / 1000 : 0,
    };
    const extra = state.session && state.sessionAt ? (Date.now() - state.sessionAt) / 1000 : 0;
    $("spins").textContent = String(s.spins);
    $("net").textContent = (s.net > 0 ? "+" : "") + money(s.net);
    $("net").className = s.net < 0 ? "loss" : s.net > 0 ? "gain" : "";
    $("elapsed").textContent = duration((s.elapsed_seconds || 0) + extra);
  }
  async function refreshPlayer() {
    if (!state.playerId) return;
    const answer = await api("GET", "/players/" + encodeURIComponent(state.playerId));
    if (answer.status === 200) showPlayer(answer.data);
  }

  // -- spinning -------------------------------------------------------------------------------
  function readyToSpin() {
    const wait = state.lastSpinAt + state.minRoundMs - Date.now();
    $("spin").disabled = state.busy || wait > 0;
    if (!state.busy && wait > 0) setTimeout(readyToSpin, wait + 20);
  }
  async function spin() {
    if (state.busy) return;
    state.busy = true;
    readyToSpin();
    const stake = Number($("stake").value);
    const requestId = (crypto.randomUUID ? crypto.randomUUID() : String(Date.now()) + Math.random());
    say("");
    try {
      const answer = await api("POST", "/sessions/" + encodeURIComponent(state.sessionId) + "/spins", { stake, request_id: requestId });
      if (answer.status === 200) {
        state.lastSpinAt = Date.now();
        await showRound(answer.data);
      } else if (answer.data && answer.data.error && answer.data.error.code === "reality_check_due") {
        $("reality-check").hidden = false;
        $("reality-text").textContent = answer.data.error.message;
        say(refusal(answer), "refusal");
      } else {
        say(refusal(answer), "refusal");
        const retry = Number(answer.headers.get("Retry-After") || 0);
        if (answer.status === 429 && retry) state.lastSpinAt = Date.now() - state.minRoundMs + retry * 1000;
      }
    } catch (error) {
      say("The service could not be reached: " + error, "refusal");
    } finally {
      state.busy = false;
      readyToSpin();
    }
  }
  async function showRound(round) {
    state.playerId = round.player_id;
    if (!state.local.startedAt) state.local.startedAt = Date.now();
    state.local.spins += 1;
    state.local.staked += round.stake;
    state.local.won += round.total_win;
    if (round.session) { state.session = round.session; state.sessionAt = Date.now(); }
    await playOut(round);
    $("balance").textContent = money(round.balance_after);
    $("level").textContent = String(round.level_after);
    say(round.total_win > 0 ? "You won " + money(round.total_win) + "!" : "No win this time.", round.total_win > 0 ? "win" : "");
    const row = document.createElement("tr");
    [round.round_id, money(round.stake), money(round.total_win)].forEach((text, i) => {
      const td = document.createElement("td");
      td.textContent = text;
      if (i) td.className = "num";
      row.appendChild(td);
    });
    row.dataset.roundId = round.round_id;
    $("history").tBodies[0].prepend(row);
    showSession();
    await refreshPlayer();
  }
  async function answerRealityCheck(keepPlaying) {
    const answer = await api("POST", "/sessions/" + encodeURIComponent(state.sessionId) + "/reality-check", { continue: keepPlaying });
    if (answer.status === 200) {
      $("reality-check").hidden = true;
      say(keepPlaying ? "Go on playing." : "Your session is closed.", "");
      if (!keepPlaying) $("spin").disabled = true;
    } else {
      say(refusal(answer), "refusal");
    }
  }

  // -- start ----------------------------------------------------------------------------------
  async function start(token, sessionId) {
    state.token = token;
    const rules = await fetch("/rules", { cache: "no-store" }).then((r) => r.json());
    state.rules = rules;
    const jurisdiction = rules.jurisdiction || {};
    state.minRoundMs = Math.max(0, Number(jurisdiction.min_round_seconds || 0) * 1000);
    const picker = $("stake");
    picker.replaceChildren();
    const maxStake = jurisdiction.max_stake;
    (rules.stakes || []).filter((s) => !maxStake || s <= maxStake).forEach((s) => {
      const option = document.createElement("option");
      option.value = String(s);
      option.textContent = money(s);
      picker.appendChild(option);
    });
    const current = await api("GET", "/sessions/current");
    if (current.status === 200 && current.data) {
      state.sessionId = current.data.session_id;
      state.playerId = current.data.player_id;
      if (current.data.spins !== undefined) { state.session = current.data; state.sessionAt = Date.now(); }
    } else if (current.status === 401) {
      say("This token is not valid or its session is closed. " + refusal(current), "refusal");
      return;
    } else {
      state.sessionId = sessionId;
    }
    if (!state.sessionId) {
      say("Add the session id to the link (#token=…&session=…).", "refusal");
      return;
    }
    $("token-card").hidden = true;
    $("game").hidden = false;
    drawScreen([["", "", ""], ["", "", ""], ["", "", ""], ["", "", ""], ["", "", ""]], {});
    showSession();
    await refreshPlayer();
    readyToSpin();
    setInterval(() => { if (state.session || state.local.startedAt) showSession(); }, 1000);
  }

  document.addEventListener("DOMContentLoaded", () => {
    const fragment = new URLSearchParams(location.hash.slice(1));
    $("token-form").addEventListener("submit", (event) => {
      event.preventDefault();
      start($("token").value.trim(), fragment.get("session") || "");
    });
    $("spin").addEventListener("click", spin);
    $("reality-continue").addEventListener("click", () => answerRealityCheck(true));
    $("reality-stop").addEventListener("click", () => answerRealityCheck(false));
    if (fragment.get("token")) {
      history.replaceState(null, "", location.pathname);  // the token leaves the address bar
      start(fragment.get("token"), fragment.get("session") || "");
    }
  });
})();
