// infra_failure.py's signatures (7a21e05, #586), verbatim: over test_output.txt's lines then
// run_instance.log's (the harness reads whichever exist, joined by "\n"), the first signature in
// this order that matches anywhere names the reason. Advisory: never a verdict. No signature spans
// a line (`^Killed$` under re.M is a line that is `Killed`).

export type InfraTier = "environment" | "ambiguous";
export interface InfraClass {
  reason: string;
  tier: InfraTier;
}

const SIGNATURES: readonly (InfraClass & { re: RegExp })[] = [
  { reason: "browser_launch_failed", tier: "environment", re: /Failed to launch|Failed to connect to the bus/ },
  {
    reason: "display_unavailable",
    tier: "environment",
    re: /cannot open display|Missing X server|unable to open X display/,
  },
  { reason: "out_of_memory", tier: "environment", re: /Cannot allocate memory|OutOfMemoryError|^Killed$/ },
  {
    reason: "container_unavailable",
    tier: "environment",
    re: /Error response from daemon|Cannot connect to the Docker daemon/,
  },
  {
    reason: "network_unreachable",
    tier: "environment",
    re: /Could not resolve host|Temporary failure in name resolution/,
  },
  { reason: "missing_module", tier: "ambiguous", re: /Cannot find module|MODULE_NOT_FOUND|ModuleNotFoundError/ },
  { reason: "no_tests_collected", tier: "ambiguous", re: /no tests ran|collected 0 items/ },
  { reason: "tests_timed_out", tier: "ambiguous", re: /Timeout error: \p{Nd}+ seconds exceeded/u },
];

export class InfraScan {
  /** Indexes of the signatures seen so far. */
  private readonly hits = new Set<number>();

  /** One line of test_output.txt, then of run_instance.log. */
  line(text: string): void {
    // Only signatures ahead of the best hit can still change the answer.
    const best = Math.min(SIGNATURES.length, ...this.hits);
    for (let i = 0; i < best; i++) if (SIGNATURES[i]?.re.test(text)) this.hits.add(i);
  }

  /** The first signature (in order) any line matched, or null. */
  result(): InfraClass | null {
    const s = SIGNATURES[Math.min(SIGNATURES.length, ...this.hits)];
    return s ? { reason: s.reason, tier: s.tier } : null;
  }
}
