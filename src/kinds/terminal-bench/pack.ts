// What `assay analyze` shows a model of a Terminal-Bench trial (after assay's hard result): its
// results.json, the keystrokes the agent sent, the test output its verdict rests on, and the
// terminal as the agent left it. Each part capped; sessions/ and agent-logs/ are not shown.
import { buildPack, CAPS, part, readText, type EvidencePack } from "../pack.js";
import type { BundleEntry } from "../../core/results.js";
import { PANE, RESULTS } from "./trial.js";

export function terminalBenchPack(dir: string, entry: BundleEntry): EvidencePack {
  return buildPack(
    [
      ...part(RESULTS, readText(dir, RESULTS), CAPS.small),
      ...part("commands.txt (what the agent typed)", readText(dir, "commands.txt"), CAPS.trajectory),
      ...part(`${PANE} (the tests' output)`, readText(dir, PANE), CAPS.part),
      ...part(
        "panes/post-agent.txt (the terminal when the agent stopped)",
        readText(dir, "panes/post-agent.txt"),
        CAPS.small,
      ),
    ],
    entry,
  );
}
