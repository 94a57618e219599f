// What `assay analyze` shows a model of a Harbor trial (after assay's hard result).
import type { BundleEntry } from "../../core/results.js";
import { buildPack, CAPS, part, readText, subfolders, type EvidencePack } from "../pack.js";

/** Steps of a multi-step trial shown (each step adds parts); the rest are named, not shown. */
const MAX_STEPS = 8;

/** Harbor trial: result.json, exception, the trajectory (capped), test output; the first steps' too. */
export function harborPack(dir: string, entry: BundleEntry): EvidencePack {
  const steps = subfolders(dir, "steps");
  const shown = steps.slice(0, MAX_STEPS);
  const perStep = (rel: string, label: string, cap: number) =>
    shown.flatMap((s) => part(`steps/${s}/${rel} (${label})`, readText(dir, `steps/${s}/${rel}`), cap));
  return buildPack(
    [
      ...part("result.json", readText(dir, "result.json")),
      ...part("exception.txt", readText(dir, "exception.txt"), CAPS.small),
      ...part("agent/trajectory.json", readText(dir, "agent/trajectory.json", 8 * 1024 * 1024), CAPS.trajectory),
      ...perStep("agent/trajectory.json", "step trajectory", CAPS.small * 2),
      ...part("verifier/test-stdout.txt", readText(dir, "verifier/test-stdout.txt"), CAPS.small),
      ...perStep("verifier/test-stdout.txt", "step test output", CAPS.small),
      ...part("steps not shown", steps.length > MAX_STEPS ? steps.slice(MAX_STEPS).join(", ") : null, CAPS.small),
    ],
    entry,
  );
}
