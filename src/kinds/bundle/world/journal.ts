// The world profile's two logs as state machines (contract §5.1–5.2). The harness journal says
// what the agent proposed and saw; the world log, which the agent never wrote, says what happened.

import type { z } from "zod";
import { finding, type Finding } from "../../../core/codes.js";
import { ProfileJournal, type JournalRecord } from "../journal.js";
import { check } from "../../../core/schema.js";
import { clip } from "../../../core/text.js";
import type { EndStatus } from "../native/records.js";
import {
  approvalRecord,
  attemptRecord,
  budgetRecord,
  effectRecord,
  faultRecord,
  policyRecord,
  queryRecord,
  replayRecord,
  reportRecord,
  requestRecord,
  treeRecord,
  worldEndRecord,
  type Approval,
  type Attempt,
  type Budget,
  type Effect,
  type Policy,
  type Report,
  type Request,
  type Scenario,
  type Tree,
} from "./records.js";

function parse<S extends z.ZodType>(schema: S, rec: JournalRecord, file: string, line: number, out: Finding[]) {
  const r = check(schema, rec, file, line, out);
  return r === null ? null : ({ ...(r as object), line } as z.output<S> & { line: number });
}

export class WorldJournal extends ProfileJournal<EndStatus> {
  readonly requests = new Map<string, Request>();
  readonly policies: Policy[] = [];
  readonly attempts: Attempt[] = [];
  readonly approvals: Approval[] = [];
  lastBudget: Budget | null = null;
  report: Report | null = null;
  private readonly attemptIds = new Set<string>();
  private readonly approvalIds = new Set<string>();

  constructor(
    file: string,
    private readonly scenario: Scenario | null,
    out: Finding[],
  ) {
    super(file, out);
  }

  record(rec: JournalRecord, line: number): void {
    if (!this.admit(rec, line)) return;
    const { file, out } = this;
    switch (rec.type) {
      case "request": {
        const r = parse(requestRecord, rec, file, line, out);
        if (r === null) return this.markLost();
        if (this.requests.has(r.request)) return this.transition(line, `request ${clip(r.request)} is defined twice`);
        this.requests.set(r.request, r);
        // The class comes from the reviewed tool contract, not from the harness's say-so.
        const tools = this.scenario?.tools;
        const reviewed = tools !== undefined && Object.hasOwn(tools, r.tool) ? tools[r.tool] : undefined; // never an inherited property
        if (this.scenario !== null && reviewed !== r.class)
          out.push(
            finding(
              "SCENARIO_MISMATCH",
              file,
              line,
              `tool ${clip(r.tool)} is ${reviewed ? `a ${reviewed}` : "not in the scenario's tools"}; the request says ${r.class}`,
            ),
          );
        return;
      }
      case "policy": {
        const r = parse(policyRecord, rec, file, line, out);
        if (r === null) return this.markLost();
        // A lost line may have defined it (`lost`): not reported then.
        if (!this.requests.has(r.request) && !this.lost)
          this.transition(line, `policy for request ${clip(r.request)}, which no earlier record defines`);
        this.policies.push(r);
        return;
      }
      case "attempt": {
        const r = parse(attemptRecord, rec, file, line, out);
        if (r === null) return this.markLost();
        if (this.attemptIds.has(r.attempt)) return this.transition(line, `attempt ${clip(r.attempt)} is defined twice`);
        this.attemptIds.add(r.attempt);
        if (!this.requests.has(r.request) && !this.lost)
          this.transition(line, `attempt for request ${clip(r.request)}, which no earlier record defines`);
        this.attempts.push(r);
        return;
      }
      case "approval": {
        const r = parse(approvalRecord, rec, file, line, out);
        if (r === null) return;
        if (this.approvalIds.has(r.approval))
          return this.transition(line, `approval ${clip(r.approval)} is defined twice`);
        this.approvalIds.add(r.approval);
        this.approvals.push(r);
        return;
      }
      case "budget": {
        const r = parse(budgetRecord, rec, file, line, out);
        if (r === null) return;
        const b = this.lastBudget;
        if (
          b !== null &&
          (r.tokens < b.tokens || r.turns < b.turns || r.tool_calls < b.tool_calls || r.wall_ms < b.wall_ms)
        )
          this.transition(line, `budget decreased from line ${b.line}: budgets are cumulative`);
        this.lastBudget = r;
        return;
      }
      case "report": {
        const r = parse(reportRecord, rec, file, line, out);
        if (r === null) return;
        if (this.report !== null)
          return this.transition(line, `a second report (the first is on line ${this.report.line})`);
        this.report = r;
        return;
      }
      case "end": {
        const r = parse(worldEndRecord, rec, file, line, out);
        if (r !== null && this.end === null) this.end = { at: r.at, status: r.status, line };
        return;
      }
      default:
        out.push(finding("SCHEMA", file, line, `type ${clip(rec.type)} is not a world journal record`));
    }
  }

  /** Every attempt id a journal record names (attempt records and policy records); null when a lost line may have named more. */
  namedAttempts(): Set<string> | null {
    if (this.lost) return null;
    return new Set([...this.attempts.map((a) => a.attempt), ...this.policies.map((p) => p.attempt)]);
  }
}

/**
 * The world log, kept as slim as the rules allow: every effect (each one matters), the attempts
 * with an after-commit fault, and the last tree per group. Replays, queries and faults are checked
 * for WORLD_LINK as they stream in (the journal, read first, names the attempts) and not kept.
 */
export class WorldLog {
  readonly effects: Effect[] = [];
  /** Attempt → the line of its first after-commit fault. */
  readonly afterCommit = new Map<string, number>();
  readonly trees = new Map<string, Tree>();
  private readonly effectIds = new Set<string>();

  constructor(
    private readonly file: string,
    private readonly out: Finding[],
    /** Null when the journal lost a line that may have named more attempts: no WORLD_LINK then. */
    private readonly named: ReadonlySet<string> | null,
  ) {}

  private link(attempt: string | null, line: number, what: string): void {
    if (attempt !== null && this.named !== null && !this.named.has(attempt))
      this.out.push(
        finding(
          "WORLD_LINK",
          this.file,
          line,
          `${what} names attempt ${clip(attempt)}, which no journal attempt or policy names`,
        ),
      );
  }

  record(rec: JournalRecord, line: number): void {
    const { file, out } = this;
    switch (rec.type) {
      case "world":
        return void out.push(finding("TRANSITION", file, line, "a second world header"));
      case "effect": {
        const r = parse(effectRecord, rec, file, line, out);
        if (r === null) return;
        this.link(r.attempt, line, `effect ${clip(r.effect)}`);
        if (this.effectIds.has(r.effect))
          return void out.push(finding("TRANSITION", file, line, `effect ${clip(r.effect)} appears twice`));
        this.effectIds.add(r.effect);
        const { seq: _s, prev: _p, type: _t, ...slim } = r;
        this.effects.push(slim as Effect);
        return;
      }
      case "replay": {
        const r = parse(replayRecord, rec, file, line, out);
        if (r !== null) this.link(r.attempt, line, `replay of ${clip(r.effect)}`);
        return;
      }
      case "fault": {
        const r = parse(faultRecord, rec, file, line, out);
        if (r === null) return;
        this.link(r.attempt, line, "fault");
        if (r.stage === "after-commit" && !this.afterCommit.has(r.attempt)) this.afterCommit.set(r.attempt, line);
        return;
      }
      case "query": {
        const r = parse(queryRecord, rec, file, line, out);
        if (r !== null) this.link(r.attempt, line, "query");
        return;
      }
      case "tree": {
        const r = parse(treeRecord, rec, file, line, out);
        if (r !== null) this.trees.set(r.group, { group: r.group, digest: r.digest, line } as Tree); // the last one per group is final
        return;
      }
      default:
        out.push(finding("SCHEMA", file, line, `type ${clip(rec.type)} is not a world log record`));
    }
  }
}
