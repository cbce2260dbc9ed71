// Provably fair, checked in the browser with WebCrypto (GAME_RULES.md section 8):
//   commitment = SHA-256(server seed)          (shown when the session opens)
//   round seed = HMAC-SHA256(key = server seed, "<session_id>:<nonce>:<client_seed>")
// The server seed is revealed when the session closes; until then every round is "pending".

const encoder = new TextEncoder();

export function toHex(bytes) {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

export function fromHex(hex) {
  if (typeof hex !== "string" || !/^([0-9a-f]{2})*$/i.test(hex)) throw new Error("not hex");
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

// A client seed made here, from the browser's CSPRNG: 16 random bytes as 32 hex characters.
export function newClientSeed() {
  return toHex(crypto.getRandomValues(new Uint8Array(16)));
}

// 0-64 printable ASCII, as the contract allows.
export function validClientSeed(text) {
  return typeof text === "string" && text.length <= 64 && /^[\x20-\x7e]*$/.test(text);
}

export async function sha256Hex(hex) {
  return toHex(await crypto.subtle.digest("SHA-256", fromHex(hex)));
}

export async function roundSeed(serverSeedHex, sessionId, nonce, clientSeed) {
  const key = await crypto.subtle.importKey(
    "raw", fromHex(serverSeedHex), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const message = encoder.encode(sessionId + ":" + nonce + ":" + clientSeed);
  return toHex(await crypto.subtle.sign("HMAC", key, message));
}

// Every round of a closed session checked against the revealed seed: the commitment first
// (shown before any bet), then each round's seed. A round is verified only if both hold.
export async function verifySession(session, rounds) {
  const serverSeed = session.server_seed;
  let commitmentOk = false;
  try {
    commitmentOk = typeof serverSeed === "string" && serverSeed.length === 64
      && (await sha256Hex(serverSeed)) === session.seed_commitment;
  } catch (_) {
    commitmentOk = false;
  }
  const results = [];
  for (const round of rounds) {
    let ok = false;
    if (commitmentOk && round.seed_commitment === session.seed_commitment) {
      const seed = await roundSeed(serverSeed, session.session_id, round.nonce, round.client_seed || "");
      ok = seed === round.seed;
    }
    results.push({ roundId: round.round_id, ok });
  }
  return { commitmentOk, results };
}
