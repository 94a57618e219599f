// Which page of docs/ (shipped with the package) to read after a command's --help.

import { fileURLToPath } from "node:url";

const PAGES: Record<string, string[]> = {
  demo: ["bundles.md", "harbor.md", "inspect.md"],
  score: ["metrics.md", "harbor.md", "inspect.md", "terminal-bench.md", "swe-bench.md", "results.md", "scale.md"],
  verify: ["bundles.md", "harbor.md", "inspect.md", "terminal-bench.md", "swe-bench.md"],
  merge: ["scale.md"],
  "slurm-script": ["scale.md"],
  compare: ["metrics.md"],
  seal: ["bundles.md"],
  "check-task": ["analyses.md"],
  analyze: ["analyses.md"],
  narrate: ["analyses.md"],
  cache: ["analyses.md"],
  synth: ["bundles.md", "harbor.md", "inspect.md"],
  schema: ["results.md"],
  attest: ["attest.md"],
  export: ["export.md", "results.md"],
};

/** The docs folder of this installation (dist/cli/ → ../../docs). */
const DOCS = fileURLToPath(new URL("../../docs/", import.meta.url));

/** The line a command's --help ends with: the page to read next, by its path on this machine. */
export function moreFor(command: string): string {
  const [first, ...also] = PAGES[command] ?? [];
  if (first === undefined) return REFERENCE;
  return `More: ${DOCS}${first}${also.length === 0 ? "" : ` (also ${also.join(", ")})`}\n`;
}

/** Every page a command's help names (for the test that each exists). */
export const pagesOf = (command: string): readonly string[] => PAGES[command] ?? [];

/** The line `assay --help` ends with. */
export const REFERENCE = `Reference: ${DOCS} (bundles, harbor, inspect, terminal-bench, swe-bench, metrics, results, export, attest, analyses, scale, safety, development)\n`;
