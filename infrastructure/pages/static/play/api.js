// The JSON API, with the session token as bearer. Bodies hold exactly the contract's fields
// (the service refuses any other with 422 unknown_field).

export class Api {
  constructor(token) {
    this.token = token;
  }

  async call(method, path, body) {
    const headers = { Authorization: "Bearer " + this.token };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "omit", cache: "no-store",
    });
    let data = null;
    try { data = await response.json(); } catch (_) { data = null; }
    return { status: response.status, data, headers: response.headers };
  }

  get(path) { return this.call("GET", path); }
  post(path, body) { return this.call("POST", path, body); }

  session() { return this.get("/sessions/current"); }
  round(roundId) { return this.get("/rounds/" + encodeURIComponent(roundId)); }
  player(playerId) { return this.get("/players/" + encodeURIComponent(playerId)); }

  spin(sessionId, stake, requestId, clientSeed) {
    return this.post("/sessions/" + encodeURIComponent(sessionId) + "/spins",
      { stake, request_id: requestId, client_seed: clientSeed });
  }
  close(sessionId) { return this.post("/sessions/" + encodeURIComponent(sessionId) + "/close", {}); }
  realityCheck(sessionId, keepPlaying) {
    return this.post("/sessions/" + encodeURIComponent(sessionId) + "/reality-check", { continue: keepPlaying });
  }
  replayLink(roundId) { return this.post("/rounds/" + encodeURIComponent(roundId) + "/replay-links", {}); }
}

export function errorOf(answer) {
  const error = answer.data && answer.data.error;
  return error || { code: "http_" + answer.status, message: "The service answered " + answer.status + "." };
}

export async function rules() {
  const response = await fetch("/rules", { cache: "no-store", credentials: "omit" });
  return response.json();
}
