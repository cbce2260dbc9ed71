// "Close and verify": one click (and a native confirm) closes the session; then the page reads
// the closed session (read-only) and checks the revealed server seed and every round itself.

import { errorOf } from "./api.js";
import { verifySession } from "./fairness.js";

const $ = (id) => document.getElementById(id);
const role = (name) => document.querySelector(`[data-role="${name}"]`);

export function showCommitment(session) {
  role("commitment").textContent = session.seed_commitment || "none (a session from before commitments)";
  $("server-seed").textContent = session.server_seed || "not yet revealed: it is shown when the session closes";
}

export async function closeAndVerify(game, closed) {
  if (game.closed) return verifyClosed(game);
  if (!window.confirm("Close this session and check every round? You cannot spin in it afterwards.")) return;
  const answer = await game.api.close(game.session.session_id);
  if (answer.status !== 200 && errorOf(answer).code !== "session_closed") {
    $("verify-result").textContent = "The session could not be closed: " + errorOf(answer).message;
    return;
  }
  closed();
  await verifyClosed(game);
}

export async function verifyClosed(game) {
  role("close-verify").disabled = true;
  const result = $("verify-result");
  result.textContent = "Checking every round in this browser…";
  const answer = await game.api.session();
  if (answer.status !== 200) {
    result.textContent = "The closed session could not be read: " + errorOf(answer).message;
    return;
  }
  const session = answer.data;
  game.session = session;
  showCommitment(session);
  const ids = session.round_ids || [];
  const rounds = [];
  for (const id of ids) {
    let round = game.history.rounds.get(id);
    if (!round) {
      const read = await game.api.round(id);
      if (read.status === 200) { round = read.data; game.history.remember(round); }
    }
    rounds.push(round || { round_id: id });
  }
  const { commitmentOk, results } = await verifySession(session, rounds);
  results.forEach(({ roundId, ok }) => game.history.mark(roundId, ok));
  const good = results.filter((r) => r.ok).length;
  result.className = "verdict " + (commitmentOk && good === results.length ? "good" : "bad");
  result.dataset.commitmentOk = String(commitmentOk);
  result.textContent = (commitmentOk
    ? "SHA-256 of the revealed server seed equals the commitment shown when the session opened. "
    : "The revealed server seed does NOT match the commitment: the rounds cannot be trusted. ")
    + good + " of " + results.length + " rounds verified in this browser.";
}
