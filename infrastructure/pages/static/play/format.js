// Money and time as the player reads them. Money arrives in integer minor units and is shown in
// major units with the session's currency; the decimal string is built from integers, so no
// float ever rounds a balance (Intl formats the exact string).

const formats = new Map();

function formatter(currency) {
  if (!formats.has(currency)) {
    formats.set(currency, new Intl.NumberFormat("en", { style: "currency", currency }));
  }
  return formats.get(currency);
}

export function minorDigits(currency) {
  return formatter(currency).resolvedOptions().maximumFractionDigits;
}

export function majorString(minor, digits) {
  const negative = minor < 0;
  const whole = String(Math.abs(minor)).padStart(digits + 1, "0");
  const major = digits ? whole.slice(0, -digits) + "." + whole.slice(-digits) : whole;
  return (negative ? "-" : "") + major;
}

export function money(minor, currency) {
  if (typeof minor !== "number" || !Number.isInteger(minor)) return "–";
  return formatter(currency).format(majorString(minor, minorDigits(currency)));
}

export function signedMoney(minor, currency) {
  return (minor > 0 ? "+" : "") + money(minor, currency);
}

export function percent(fraction) {
  return (fraction * 100).toFixed(2) + "%";
}

export function duration(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  return (h ? h + "h " : "") + String(m).padStart(h ? 2 : 1, "0") + "m " + String(r).padStart(2, "0") + "s";
}
