// Obvious credentials in evidence are replaced wherever assay repeats evidence: finding messages,
// flag evidence, and the packs sent to a model (there the redaction is part of the evidence digest). Shapes, not a secret scanner: keys with well-known prefixes,
// bearer tokens, private-key blocks, and values of variables named like secrets.

const PATTERNS: [RegExp, string][] = [
  [/sk-ant-[A-Za-z0-9_-]{8,}/g, "[redacted anthropic key]"],
  [/\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}/g, "[redacted api key]"],
  [/\b(?:ghp|gho|ghs|ghu|github_pat)_[A-Za-z0-9_]{20,}/g, "[redacted github token]"],
  [/\bAKIA[0-9A-Z]{16}\b/g, "[redacted aws key id]"],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, "[redacted slack token]"],
  [/\bAIza[0-9A-Za-z_-]{35}\b/g, "[redacted google key]"],
  [/(\bBearer\s+)[A-Za-z0-9._~+/-]{16,}=*/gi, "$1[redacted token]"],
  // To its END line, or to the end of the text when an excerpt cut the block short.
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$(?![\s\S]))/g, "[redacted private key]"],
  // NAME=value, NAME: value, "name": "value" — for names that say they hold a secret.
  [/(\b[A-Za-z0-9_]*(?:api_?key|secret|token|password|passwd)[A-Za-z0-9_]*["']?\s*[=:]\s*["']?)[A-Za-z0-9_\-./+=]{8,}/gi, "$1[redacted]"],
];

export function redact(text: string): string {
  let out = text;
  for (const [re, by] of PATTERNS) out = out.replace(re, by);
  return out;
}
