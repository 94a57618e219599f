// The native-game journal as a state machine over records (contract §4.1–4.3). It keeps only
// what later rules need, so memory does not grow with the journal.

import { finding, type Finding } from "../../../core/codes.js";
import { ProfileJournal, type JournalRecord } from "../journal.js";
import { JsonDecimal } from "../../../core/json/strict.js";
import { check } from "../../../core/schema.js";
import { clip } from "../../../core/text.js";
import { endRecord, keysRecord, observationRecord, scoreRecord, type EndStatus, type NativeState } from "./records.js";
import { fastEnd, fastKeys, fastObservation, fastScore } from "./fast.js";
import { isVictory } from "./victory.js";

export interface Observed {
  at: number;
  frame: number;
  state: NativeState;
  line: number;
}

export class NativeJournal extends ProfileJournal<EndStatus> {
  lastObservation: Observed | null = null;
  /** The first observation with is_dead: the game decided the outcome there. */
  ending: Observed | null = null;
  finalScore: { at: number; snapshot: string; line: number } | null = null;
  counts = { keys: 0, observations: 0, scores: 0 };
  /** The latest readable observation's frame (null before one). */
  private frame: number | null = null;
  /**
   * Lines since that observation (or since the header) that could not be read, or observations
   * whose frame is no integer: each may have been an observation, so the next observation's frame
   * lies within `frame + 1 .. frame + 1 + unread`, and it becomes the new baseline.
   */
  private unread = 0;

  constructor(
    file: string,
    private readonly deadline: number | null,
    out: Finding[],
  ) {
    super(file, out);
  }

  override unreadable(line: number): void {
    super.unreadable(line);
    this.unread++;
  }

  /** "N unreadable line(s) since frame F" (or since the header), for continuity findings. */
  private since(): string {
    return `${this.unread} unreadable line${this.unread === 1 ? "" : "s"} since ${this.frame === null ? "the header" : `frame ${this.frame}`}`;
  }

  record(rec: JournalRecord, line: number): void {
    if (!this.admit(rec, line)) return;
    if (this.end === null && this.finalScore !== null && rec.type !== "end")
      this.transition(line, `${clip(rec.type)} record after the final score (line ${this.finalScore.line})`);
    switch (rec.type) {
      case "observation":
        return this.observation(rec, line);
      case "keys":
        return this.keys(rec, line);
      case "score":
        return this.score(rec, line);
      case "end":
        return this.endRecord(rec, line);
      default:
        this.out.push(finding("SCHEMA", this.file, line, `type ${clip(rec.type)} is not a native-game record`));
    }
  }

  private observation(rec: JournalRecord, line: number): void {
    const written = rec["frame"];
    const frame = written instanceof JsonDecimal ? written.value : written;
    const r = fastObservation(rec) ?? check(observationRecord, rec, this.file, line, this.out);
    // Follow the written frame even when the record is malformed, so one bad line is one finding;
    // after unreadable lines any frame they could account for is the new baseline.
    const lo = this.frame === null ? 0 : this.frame + 1;
    const hi = lo + this.unread;
    if (typeof frame === "number" && Number.isSafeInteger(frame)) {
      if (frame < lo || frame > hi)
        this.transition(
          line,
          `observation frame ${frame}; expected ${this.unread === 0 ? lo : `${lo} to ${hi} (${this.since()})`}`,
        );
      this.frame = frame;
      this.unread = 0;
    } else this.unread++; // an observation whose frame is unknown (its SCHEMA finding says why)
    if (r === null) return this.markLost(); // it may have been the ending

    this.counts.observations++;
    const prev = this.lastObservation;
    if (prev !== null) {
      if (r.state.turn < prev.state.turn)
        this.transition(line, `turn decreased from ${prev.state.turn} to ${r.state.turn}`);
      if (r.state.playerturn < prev.state.playerturn)
        this.transition(line, `playerturn decreased from ${prev.state.playerturn} to ${r.state.playerturn}`);
    }
    const obs = { at: r.at, frame: r.frame, state: r.state, line };
    if (this.ending !== null) {
      const e = this.ending.state;
      if (r.state.is_dead !== e.is_dead || r.state.escaped !== e.escaped)
        this.transition(line, `is_dead/escaped changed after the native ending (line ${this.ending.line})`);
    } else if (r.state.is_dead) this.ending = obs;
    this.lastObservation = obs;
  }

  private keys(rec: JournalRecord, line: number): void {
    const r = fastKeys(rec) ?? check(keysRecord, rec, this.file, line, this.out);
    if (r === null) return;
    this.counts.keys++;
    if (this.unread === 0) {
      if (this.frame === null) return this.transition(line, "keys before the first observation");
      if (r.frame !== this.frame)
        this.transition(line, `keys for frame ${r.frame}; the latest observation is frame ${this.frame}`);
    } else {
      // The unreadable lines may hold later observations: the latest is one of these frames.
      const lo = this.frame ?? 0;
      const hi = this.frame === null ? this.unread - 1 : this.frame + this.unread;
      if (r.frame < lo || r.frame > hi)
        this.transition(
          line,
          `keys for frame ${r.frame}; the latest observation is frame ${lo === hi ? lo : `${lo} to ${hi}`} at most (${this.since()})`,
        );
    }
    if (this.deadline !== null && r.at > this.deadline)
      this.transition(line, `keys admitted at ${r.at}, after the deadline ${this.deadline}`);
  }

  private score(rec: JournalRecord, line: number): void {
    const r = fastScore(rec) ?? check(scoreRecord, rec, this.file, line, this.out);
    if (r === null) return this.markLost(); // it may have been the final score
    this.counts.scores++;
    if (this.frame === null && this.unread === 0) this.transition(line, "score before the first observation");
    if (r.final && this.finalScore === null) this.finalScore = { at: r.at, snapshot: r.snapshot!, line };
  }

  private endRecord(rec: JournalRecord, line: number): void {
    const r = fastEnd(rec) ?? check(endRecord, rec, this.file, line, this.out);
    if (r === null) return;
    // An unreadable line may have held the ending or the final score: not reported as missing.
    if (r.status === "completed" && this.ending === null && !this.lost)
      this.transition(line, "end status completed without a native ending");
    if (r.status === "interrupted" && this.finalScore === null && !this.lost)
      this.transition(line, "end status interrupted without a final score");
    if (this.end === null) this.end = { at: r.at, status: r.status, line };
  }

  /** Outcome fields of the bundle entry; victory and late need the header's deadline. */
  outcome(deadline: number | null) {
    const e = this.ending;
    return {
      status: this.end?.status ?? ("unterminated" as const),
      ending: e !== null,
      final_score: this.finalScore !== null,
      victory: e !== null && deadline !== null && isVictory(e, deadline),
      late: e === null || deadline === null ? null : e.at > deadline,
    };
  }
}
