// ISO 8601 timestamps as Python's isoformat writes them (Harbor's result.json, Terminal-Bench's
// run files): with or without an offset, with up to nanosecond fractions. A naive time is read as
// UTC, never in the scoring host's zone, so a verdict cannot depend on where assay runs; it is
// compared only with other naive times (the writer wrote them in its own zone). Compared as
// integer microseconds (Date keeps only ms).

const ISO = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

/** Written without an offset (a naive local time): comparable only with other naive times. */
export const isNaive = (text: string): boolean => ISO.exec(text)?.[8] === undefined;

/** Microseconds since the epoch, or null when `text` is not such a timestamp. */
export function parseTimestamp(text: string): bigint | null {
  const m = ISO.exec(text);
  if (m === null) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59)
    return null;
  const micros = BigInt((m[7] ?? "").padEnd(6, "0").slice(0, 6) || "0");
  let offsetMinutes = 0;
  const zone = m[8];
  if (zone !== undefined && zone !== "Z" && zone !== "z") {
    const digits = zone.slice(1).replace(":", "");
    const h = Number(digits.slice(0, 2));
    const min = Number(digits.slice(2) || "0");
    if (h > 23 || min > 59) return null;
    offsetMinutes = (zone[0] === "-" ? -1 : 1) * (h * 60 + min);
  }
  const d = new Date(0); // setUTCFullYear, unlike Date.UTC, keeps years 0..99 as written
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, 0);
  return BigInt(d.getTime() - offsetMinutes * 60_000) * 1000n + micros;
}

function daysIn(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
