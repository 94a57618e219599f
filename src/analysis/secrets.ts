// The credentials assay is given (the API key, an auth token) must never leave the process: not in
// an answer, a header, an endpoint, a cache row, an export or a message. Everything that leaves or
// enters the cache passes through a scrubber made from the environment.

import { redact } from "../core/redact.js";

/** Environment variables that hold a credential for the model endpoint. */
export const SECRET_VARIABLES = ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"] as const;

/** Replace every credential the environment names (whatever its shape) and anything shaped like one. */
export function secretScrubber(env: Record<string, string | undefined>): (text: string) => string {
  const secrets = SECRET_VARIABLES.map((v) => env[v] ?? "").filter((s) => s.length > 0);
  return (text) => redact(secrets.reduce((t, s) => t.split(s).join("[redacted]"), text));
}

/** A JSON value with every string in it (keys too) scrubbed. */
export function scrubDeep(value: unknown, scrub: (text: string) => string): unknown {
  if (typeof value === "string") return scrub(value);
  if (Array.isArray(value)) return value.map((v) => scrubDeep(v, scrub));
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [scrub(k), scrubDeep(v, scrub)]));
  return value;
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

/**
 * An endpoint as provenance records it: scheme, host, port and path, with no user-info, query or
 * fragment (where a proxy URL carries its token), and every path segment that holds a credential
 * (one the environment names, a shape redact() knows, a long mix of letters and digits) replaced.
 */
export function publicEndpoint(url: string, scrub: (text: string) => string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "[redacted: not a URL]";
  }
  const secret = (s: string) => scrub(s) !== s || SECRET_SEGMENT.test(s);
  const path = u.pathname
    .split("/")
    .map((seg) => (seg !== "" && (secret(seg) || secret(decoded(seg))) ? "[redacted]" : seg))
    .join("/");
  return `${u.protocol}//${scrub(u.host)}${path === "/" ? "" : path}`;
}
