// Progress on stderr: cli-progress bars on a terminal, a plain status line every few seconds
// elsewhere (CI logs), nothing with --quiet.

import type cliProgress from "cli-progress";
import type { BundleEntry } from "../core/results.js";
import type { Progress } from "../pipeline/score.js";
import type { CliIo } from "./io.js";
import { wordsOf } from "../report/vocabulary.js";

/**
 * What the count counts, in the words of the kinds scored so far (issue 40): "trials" for Harbor
 * or Terminal-Bench, "logs" for Inspect, "instances" for SWE-bench, "bundles" for assay's own, joined
 * with "/" where several are mixed; "bundles" until the first is done (nothing says yet what they are).
 */
export function progressNoun(profiles: Iterable<string | null>): string {
  const nouns = new Set<string>();
  for (const p of profiles) nouns.add(wordsOf(p).evidencePlural.split(" ").pop()!);
  return nouns.size === 0 ? "bundles" : [...nouns].sort().join("/");
}

interface Counts {
  found: number;
  /** The look-ahead count of bundles (at least `found` once final). */
  counted: number;
  done: number;
  cached: number;
  invalid: number;
  errors: number;
  bytesDone: number;
  discovered: boolean;
  started: number;
}

const mb = (b: number) => (b / 1e6).toFixed(1);

export interface Reporter extends Progress {
  /** A message on stderr: on a terminal the bar is ended first, so the two never overwrite each other. */
  note(text: string): void;
  stop(): void;
}

/** cli-progress is loaded only for a terminal. */
export async function progressReporter(io: CliIo, mode: "tty" | "lines" | "quiet", everyMs = 5000): Promise<Reporter> {
  const c: Counts = {
    found: 0,
    counted: 0,
    done: 0,
    cached: 0,
    invalid: 0,
    errors: 0,
    bytesDone: 0,
    discovered: false,
    started: Date.now(),
  };
  const profiles = new Set<string | null>();
  let noun = "bundles";
  const rate = () => c.done / Math.max(0.001, (Date.now() - c.started) / 1000);
  const total = () => Math.max(c.found, c.counted);
  const eta = () => {
    if (!c.discovered) return "…";
    const r = rate();
    return r > 0 ? `${Math.ceil((total() - c.done) / r)}s` : "…";
  };
  const payload = () => ({
    mbDone: mb(c.bytesDone),
    invalid: c.invalid,
    errors: c.errors,
    rate: rate().toFixed(0),
    etaText: eta(),
    more: c.discovered ? "" : "+",
    noun,
  });
  const line = () =>
    `assay: ${c.done}/${total()}${c.discovered ? "" : "+"} ${noun} (${c.cached} from store), ${mb(c.bytesDone)} MB, ` +
    `${c.invalid} invalid, ${c.errors} tool errors, ${rate().toFixed(0)} ${noun}/s, ETA ${eta()}\n`;

  let bar: cliProgress.SingleBar | null = null;
  let timer: NodeJS.Timeout | null = null;
  if (mode === "tty") {
    const { default: cliProgress } = await import("cli-progress");
    bar = new cliProgress.SingleBar(
      {
        stream: process.stderr,
        format:
          "{bar} {value}/{total}{more} {noun} | {mbDone} MB | {invalid} invalid | {errors} tool errors | {rate}/s | ETA {etaText}",
        hideCursor: true,
        clearOnComplete: false,
        emptyOnZero: true, // 0/0 (nothing found yet) is an empty bar, not a full one
        fps: 10,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(0, 0, payload());
  } else if (mode === "lines") {
    timer = setInterval(() => io.stderr(line()), everyMs);
    timer.unref();
  }
  const update = () => {
    if (bar) {
      bar.setTotal(total());
      bar.update(c.done, payload());
    }
  };
  return {
    found() {
      c.found++;
      update();
    },
    discovered() {
      c.discovered = true;
      update();
    },
    // Only where progress is shown: the look-ahead count walks the roots a second time.
    ...(mode === "quiet"
      ? {}
      : {
          counted(bundles: number, final: boolean) {
            c.counted = bundles;
            if (final) c.discovered = true;
            update();
          },
        }),
    done(entry: BundleEntry, bytes, cached) {
      c.done++;
      c.bytesDone += bytes;
      if (cached) c.cached++;
      if (entry.validity === "invalid") c.invalid++;
      if (entry.validity === "error") c.errors++;
      if (!profiles.has(entry.profile)) {
        profiles.add(entry.profile);
        noun = progressNoun(profiles);
      }
      update();
    },
    note(text) {
      if (bar) {
        update();
        bar.stop();
        bar = null; // the run is ending: the final status goes in the closing line, not a new bar
      }
      io.stderr(text);
    },
    stop() {
      if (timer) clearInterval(timer);
      if (bar) {
        update();
        bar.stop();
      } else if (mode === "lines" && c.found > 0) io.stderr(line());
    },
  };
}
