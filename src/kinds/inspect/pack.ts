// What `assay analyze` shows a model of an Inspect log (after assay's hard result).
import type { BundleEntry } from "../../core/results.js";
import { firstSamples } from "./read.js";
import { buildPack, capText, CAPS, part, type EvidencePack } from "../pack.js";

/** Samples of an Inspect log shown (each a part); the log's others are counted, not shown. */
const MAX_SAMPLES = 12;

/** What a sample's text field holds: a string, or the text of a list of content parts or messages. */
function textOf(v: unknown): string {
  if (typeof v === "string") return v;
  if (Array.isArray(v))
    return v
      .map(textOf)
      .filter((t) => t !== "")
      .join("\n");
  if (typeof v === "object" && v !== null) {
    const o = v as Record<string, unknown>;
    if (typeof o["text"] === "string") return o["text"];
    if (o["content"] !== undefined)
      return `${typeof o["role"] === "string" ? `${o["role"]}: ` : ""}${textOf(o["content"])}`;
  }
  return "";
}

/** One Inspect sample as the model sees it: input, target, the final answer, each score's value, answer and explanation, the error. */
function inspectSample(s: Record<string, unknown>): string {
  const output = s["output"] as { choices?: { message?: { content?: unknown } }[]; completion?: unknown } | undefined;
  const answer =
    typeof output?.completion === "string" && output.completion !== ""
      ? output.completion
      : textOf(output?.choices?.[0]?.message?.content);
  const scores =
    typeof s["scores"] === "object" && s["scores"] !== null
      ? Object.entries(s["scores"] as Record<string, Record<string, unknown>>)
      : [];
  const error =
    typeof s["error"] === "object" && s["error"] !== null
      ? String((s["error"] as Record<string, unknown>)["message"] ?? "")
      : null;
  return [
    `input: ${capText(textOf(s["input"]), CAPS.small)}`,
    `target: ${capText(textOf(s["target"]), CAPS.small / 4)}`,
    `final answer: ${capText(answer, CAPS.small)}`,
    ...scores.map(
      ([name, sc]) =>
        `score ${name}: value ${JSON.stringify(sc?.["value"] ?? null)}; answer ${capText(textOf(sc?.["answer"]), 500)}; explanation ${capText(textOf(sc?.["explanation"]), CAPS.small / 2)}`,
    ),
    ...(error === null ? [] : [`error: ${capText(error, CAPS.small / 2)}`]),
  ].join("\n");
}

/**
 * An Inspect log (§12): its samples as trials — each shown sample's input, target, final answer,
 * scores with their explanations and error — after the hard result (the log's states, plan and
 * metrics). The first MAX_SAMPLES records are read, a sample at a time.
 */
export function inspectPack(file: string, entry: BundleEntry): EvidencePack {
  const format = entry.inspect?.format ?? (file.endsWith(".eval") ? "eval" : "json");
  const samples = firstSamples(file, format, MAX_SAMPLES);
  const planned = entry.inspect?.plan.records ?? samples.length;
  return buildPack(
    [
      ...samples.map(({ where, sample }) => ({
        name: `${where} (sample ${JSON.stringify(sample["id"] ?? null)}, epoch ${JSON.stringify(sample["epoch"] ?? null)})`,
        text: inspectSample(sample),
        cap: CAPS.part,
      })),
      ...part(
        "samples not shown",
        planned > samples.length ? `${planned - samples.length} more planned records of this log are not shown` : null,
        CAPS.small,
      ),
    ],
    entry,
  );
}
