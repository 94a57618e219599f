// The credentials assay is given (the API key, an auth token) must never leave the process: not in
// an answer, a header, an endpoint, a cache row, an export or a message. Everything that leaves or
// enters the cache passes through a scrubber made from the environment.

import { MAX_JSON_DEPTH } from "../core/json/strict.js";
import { redact } from "../core/redact.js";

/** Environment variables that hold a credential for the model endpoint. */
export const SECRET_VARIABLES = ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"] as const;

/**
 * Replace every credential the environment names (whatever its shape), every one of `more` (those
 * an endpoint URL held), and anything shaped like one.
 */
export function secretScrubber(
  env: Record<string, string | undefined>,
  more: readonly string[] = [],
): (text: string) => string {
  const secrets = [...SECRET_VARIABLES.map((v) => env[v] ?? ""), ...more].filter((s) => s.length > 0);
  return (text) => redact(secrets.reduce((t, s) => t.split(s).join("[redacted]"), text));
}

/** What stands for a part of a value nested deeper than MAX_JSON_DEPTH (an endpoint's answer is not evidence's, and not read through the strict parser). */
export const CUT_DEEP = `[nested deeper than ${MAX_JSON_DEPTH} levels: cut]`;

/**
 * A JSON value with every string in it (keys too) scrubbed. Recursion is bounded: past
 * MAX_JSON_DEPTH levels the rest is CUT_DEEP, so no answer can overflow the stack here, nor in
 * JSON.stringify later. Keys are kept as own members (`__proto__` too: Object.fromEntries).
 */
export function scrubDeep(value: unknown, scrub: (text: string) => string, depth = 0): unknown {
  if (typeof value === "string") return scrub(value);
  if (typeof value !== "object" || value === null) return value;
  if (depth >= MAX_JSON_DEPTH) return CUT_DEEP;
  if (Array.isArray(value)) return value.map((v) => scrubDeep(v, scrub, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [scrub(k), scrubDeep(v, scrub, depth + 1)]));
}

/** A path segment shaped like a credential: 20 or more characters mixing letters and digits. */
const SECRET_SEGMENT = /^(?=[^/]*[A-Za-z])(?=[^/]*[0-9])[^/]{20,}$/;

const decoded = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

/** Shorter query values are settings (`?beta=true`), not credentials worth replacing in every text. */
const MIN_SECRET = 8;

/**
 * An endpoint URL as provenance records it — scheme, host, port and path, with no user-info, query
 * or fragment (where a proxy URL carries its token), every path segment that holds a credential
 * (one `scrub` knows, a long mix of letters and digits) replaced — and the credentials it held, for
 * the caller's scrubber: an endpoint may echo what its URL carried.
 */
export function endpointOf(url: string, scrub: (text: string) => string): { shown: string; secrets: string[] } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { shown: "[redacted: not a URL]", secrets: url.length >= MIN_SECRET ? [url] : [] };
  }
  const secrets = [decoded(u.username), decoded(u.password), decoded(u.hash.slice(1)), ...u.searchParams.values()];
  const path = u.pathname
    .split("/")
    .map((seg) => {
      const plain = decoded(seg);
      if (seg === "" || !(scrub(plain) !== plain || SECRET_SEGMENT.test(plain))) return seg;
      secrets.push(plain);
      return "[redacted]";
    })
    .join("/");
  return {
    shown: `${u.protocol}//${scrub(u.host)}${path === "/" ? "" : path}`,
    secrets: secrets.filter((x) => x.length >= MIN_SECRET),
  };
}
