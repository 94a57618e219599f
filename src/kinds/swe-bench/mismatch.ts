// REPORT_MISMATCH: report.json's resolved, patch_successfully_applied or a test's place in
// tests_status is not what the re-derivation gives. The message names the field and, where one
// explains it, the rule an older harness lacked (#598, #402, #290, SUITE_RAN, #620).

import type { Finding } from "./checks.js";
import type { LogEvaluation, Rederivation } from "./grade.js";
import { decidingOf, type InstanceReport } from "./instance-report.js";
import { SKIPPED } from "./statuses.js";
import { lookup, placeOf, type DecidingTests, type Lists, type Lookup } from "./tests.js";

const NAMED = 3;

export function mismatchFindings(r: InstanceReport, ev: LogEvaluation, red: Rederivation): Finding[] {
  const out: Finding[] = [];
  const mismatch = (field: string, claimed: unknown, derived: unknown, rule: string | null) =>
    out.push({
      code: "REPORT_MISMATCH",
      message: `report.json's ${field} is ${claimed}, the re-derivation from test_output.txt gives ${derived}${rule ? ` (${rule})` : ""}`,
    });
  const applied = r.patch_successfully_applied;
  if (applied !== undefined && applied !== red.found)
    mismatch("patch_successfully_applied", applied, red.found, foundRule(ev));
  // Without tests_status the deciding tests are unknown: only a verdict without results is checked.
  if (r.tests_status || !red.found) {
    if (r.resolved !== red.resolved)
      mismatch(
        "resolved",
        r.resolved,
        red.resolved,
        applied !== undefined && applied !== red.found ? "as patch_successfully_applied" : null,
      );
  }
  const deciding = decidingOf(r);
  if (r.tests_status && deciding && red.found) {
    for (const list of ["FAIL_TO_PASS", "PASS_TO_PASS"] as const) {
      const moved = movedTests(list, r.tests_status[list], deciding, ev);
      if (moved.length > 0) {
        const named = moved.slice(0, NAMED).join("; ");
        const more = moved.length > NAMED ? `; and ${moved.length - NAMED} more` : "";
        out.push({
          code: "REPORT_MISMATCH",
          message: `report.json's tests_status.${list} places ${moved.length} test(s) otherwise than the re-derivation: ${named}${more}`,
        });
      }
    }
  }
  return out;
}

/** Why the re-derivation found (or did not find) results where the report says otherwise. */
function foundRule(ev: LogEvaluation): string | null {
  if (ev.found)
    return ev.outsideRegion
      ? "its results lie outside the markers: #402's fallback, which an older harness lacked"
      : null;
  switch (ev.not_run) {
    case "no-results":
      return "nothing parsed and no sign the suite ran: SUITE_RAN, which an older harness lacked";
    case "exit-code":
      return `no failure from a test command that exited ${ev.exit_code}: #620's check, which an older harness lacked`;
    case "parser-error":
      return `the harness's parser raises on this log: ${ev.crash}`;
    case "no-markers":
      return "the log lacks its start or end marker";
    default:
      return ev.not_run ? `the log holds ${ev.not_run.slice("marker:".length)}` : null;
  }
}

/** Each test whose place differs, described: `'name' success → failure (why)`. */
function movedTests(list: keyof DecidingTests, claimed: Lists, deciding: DecidingTests, ev: LogEvaluation): string[] {
  const out: string[] = [];
  const claimedPlaces = [
    ...claimed.success.map(() => "success" as const),
    ...claimed.failure.map(() => "failure" as const),
  ];
  deciding[list].forEach((test, i) => {
    const found = lookup(test, ev.statuses);
    const derived = placeOf(list, found) ?? "neither";
    const was = claimedPlaces[i];
    if (derived === was) return;
    const status = found.status === null ? "no status" : `status ${found.status}`;
    out.push(`${JSON.stringify(test)} ${was} → ${derived} (${status}${ruleOf(list, found, ev)})`);
  });
  return out;
}

function ruleOf(list: keyof DecidingTests, found: Lookup, ev: LogEvaluation): string {
  if (found.byPrefix) return `, by the prefix of an id cut inside its brackets: #290, which an older harness lacked`;
  if (found.status === SKIPPED) {
    return list === "FAIL_TO_PASS"
      ? ": a skipped FAIL_TO_PASS test fails since #598"
      : ": a skipped PASS_TO_PASS test passes since #598";
  }
  if (ev.outsideRegion) return ": read outside the markers, #402's fallback";
  return "";
}
