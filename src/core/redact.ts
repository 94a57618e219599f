// Obvious credentials in evidence are replaced wherever assay repeats evidence: finding messages,
// flag evidence, and the packs sent to a model (there the redaction is part of the evidence digest).
// Shapes, not a secret scanner. Every quantifier is bounded, so the cost stays linear in the text
// whatever an agent wrote (a run of word characters must not make a pattern backtrack over it).

const PATTERNS: [RegExp, string][] = [
  [/sk-ant-[A-Za-z0-9_-]{8,256}/g, "[redacted anthropic key]"],
  [/\bsk-(?:proj-)?[A-Za-z0-9_-]{20,256}/g, "[redacted api key]"],
  [/\b(?:ghp|gho|ghs|ghu|github_pat)_[A-Za-z0-9_]{20,256}/g, "[redacted github token]"],
  [/\bhf_[A-Za-z0-9]{20,256}/g, "[redacted hugging face token]"],
  [/\bAKIA[0-9A-Z]{16}\b/g, "[redacted aws key id]"],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,256}/g, "[redacted slack token]"],
  [/\bAIza[0-9A-Za-z_-]{35}\b/g, "[redacted google key]"],
  [/\beyJ[A-Za-z0-9_-]{10,4096}\.[A-Za-z0-9_-]{10,4096}\.[A-Za-z0-9_-]{10,4096}/g, "[redacted jwt]"],
  [/(\b(?:Bearer|Basic)\s{1,8})[A-Za-z0-9._~+/-]{12,4096}=*/gi, "$1[redacted token]"],
  // user:password@ in a URL
  [/(\b[a-z][a-z0-9+.-]{0,16}:\/\/[^\s/:@]{1,128}:)[^\s/@]{3,256}@/gi, "$1[redacted]@"],
  // To its END line, or to the end of the text when an excerpt cut the block short.
  [
    /-----BEGIN [A-Z ]{0,32}PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]{0,32}PRIVATE KEY-----|$(?![\s\S]))/g,
    "[redacted private key]",
  ],
  // NAME=value, NAME: value, "name": "value", \"name\": \"value\" — for names that say they hold a
  // secret, when the value has a letter in it (token counts are numbers, not secrets).
  [
    /(\b[A-Za-z0-9_-]{0,64}(?:api[_-]?key|secret|token|password|passwd)[A-Za-z0-9_-]{0,64}\\?["']?\s{0,8}[=:]\s{0,8}\\?["']?)(?=[A-Za-z0-9_\-./+=]{0,512}[A-Za-z])[A-Za-z0-9_\-./+=]{8,512}/gi,
    "$1[redacted]",
  ],
];

export function redact(text: string): string {
  let out = text;
  for (const [re, by] of PATTERNS) out = out.replace(re, by);
  return out;
}

/**
 * Evidence as assay repeats it (a finding's message, a dimension's detail): credentials replaced,
 * then cut to `max` characters, so its size never follows the input's. The cut is a flat copy: a
 * V8 slice would keep a possibly huge original alive.
 */
export function repeated(text: string, max: number): string {
  const clean = redact(text);
  return clean.length > max ? (JSON.parse(JSON.stringify(`${clean.slice(0, max)}… (cut)`)) as string) : clean;
}
