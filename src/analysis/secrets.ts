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
