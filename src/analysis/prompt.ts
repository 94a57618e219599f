// Prompt templates (prompts/*.md): a system part that holds only instructions and a user part
// that receives the evidence. The template's bytes are part of the cache key.

import { sha256 } from "../core/folder.js";
import type { Rubric } from "./rubric.js";

export interface Template {
  name: string;
  digest: string;
  system: string;
  user: string;
}

export class TemplateError extends Error {
  readonly code = "TEMPLATE";
}

export function parseTemplate(name: string, bytes: Uint8Array): Template {
  const text = Buffer.from(bytes).toString("utf8");
  const m = /^\s*<!-- system -->\n([\s\S]*?)\n<!-- user -->\n([\s\S]*)$/.exec(text);
  if (m === null) throw new TemplateError(`prompt ${name}: expected a <!-- system --> part, then a <!-- user --> part`);
  const [system, user] = [m[1]!.trim(), m[2]!.trim()];
  if (system.includes("{{evidence}}"))
    throw new TemplateError(`prompt ${name}: evidence never goes in the system part`);
  if (!user.includes("{{evidence}}")) throw new TemplateError(`prompt ${name}: the user part must hold {{evidence}}`);
  return { name, digest: sha256(bytes), system, user };
}

/** The user turn: the rubric's criteria and the (already wrapped) evidence in their places. */
export function renderUser(t: Template, analysis: string, rubric: Rubric, evidence: string): string {
  const criteria = rubric.criteria
    .map((c) => `- ${c.name}: ${c.description}${c.guidance ? `\n  ${c.guidance.trim().replace(/\n/g, "\n  ")}` : ""}`)
    .join("\n");
  // One pass, so text substituted in (the evidence above all) is never scanned for placeholders.
  const values: Record<string, string> = { analysis, criteria, evidence };
  return t.user.replace(/\{\{(analysis|criteria|evidence)\}\}/g, (_, k: string) => values[k]!);
}
