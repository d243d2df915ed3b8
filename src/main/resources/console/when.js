// Reads a due time typed in the console: a delay ("30s", "5 m", "2h", "1d") or a date and time
// ("2026-12-01T10:00:00Z", or local time without a zone). Returns the API's fields, or throws saying why.
const UNITS = { ms: 1, s: 1000, m: 60000, min: 60000, h: 3600000, d: 86400000 };

export function parseWhen(text) {
  const t = text.trim();
  if (t === '' || t.toLowerCase() === 'now') {
    return {};
  }
  const delay = t.match(/^(\d+(?:\.\d+)?)\s*(ms|s|min|m|h|d)$/i);
  if (delay) {
    return { delayMs: Math.round(parseFloat(delay[1]) * UNITS[delay[2].toLowerCase()]) };
  }
  const at = Date.parse(t);
  if (Number.isNaN(at)) {
    throw new Error('"' + t + '" is neither a delay (30s, 5m, 2h, 1d) nor a date and time (2026-12-01T10:00:00Z)');
  }
  return { atMs: at };
}
