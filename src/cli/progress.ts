// Progress on stderr: cli-progress bars on a terminal, a plain status line every few seconds
// elsewhere (CI logs), nothing with --quiet.

import cliProgress from "cli-progress";
import type { BundleEntry } from "../core/results.js";
import type { Progress } from "../pipeline/score.js";
import type { CliIo } from "./io.js";

interface Counts {
  found: number;
  done: number;
  cached: number;
  invalid: number;
  errors: number;
  bytesFound: number;
  bytesDone: number;
  discovered: boolean;
  started: number;
}

const mb = (b: number) => (b / 1e6).toFixed(1);

export interface Reporter extends Progress {
  stop(): void;
}

export function progressReporter(io: CliIo, mode: "tty" | "lines" | "quiet", everyMs = 5000): Reporter {
  const c: Counts = { found: 0, done: 0, cached: 0, invalid: 0, errors: 0, bytesFound: 0, bytesDone: 0, discovered: false, started: Date.now() };
  const rate = () => c.done / Math.max(0.001, (Date.now() - c.started) / 1000);
  const eta = () => {
    if (!c.discovered) return "…";
    const r = rate();
    return r > 0 ? `${Math.ceil((c.found - c.done) / r)}s` : "…";
  };
  const payload = () => ({
    mbDone: mb(c.bytesDone),
    mbFound: mb(c.bytesFound),
    invalid: c.invalid,
    errors: c.errors,
    rate: rate().toFixed(0),
    etaText: eta(),
    more: c.discovered ? "" : "+",
  });
  const line = () =>
    `assay: ${c.done}/${c.found}${c.discovered ? "" : "+"} bundles (${c.cached} from store), ${mb(c.bytesDone)}/${mb(c.bytesFound)} MB, ` +
    `${c.invalid} invalid, ${c.errors} tool errors, ${rate().toFixed(0)} bundles/s, ETA ${eta()}\n`;

  let bar: cliProgress.SingleBar | null = null;
  let timer: NodeJS.Timeout | null = null;
  if (mode === "tty") {
    bar = new cliProgress.SingleBar(
      {
        stream: process.stderr,
        format: "{bar} {value}/{total}{more} bundles | {mbDone}/{mbFound} MB | {invalid} invalid | {errors} tool errors | {rate}/s | ETA {etaText}",
        hideCursor: true,
        clearOnComplete: false,
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
      bar.setTotal(c.found);
      bar.update(c.done, payload());
    }
  };
  return {
    found(bytes) {
      c.found++;
      c.bytesFound += bytes;
      update();
    },
    discovered() {
      c.discovered = true;
      update();
    },
    done(entry: BundleEntry, bytes, cached) {
      c.done++;
      c.bytesDone += bytes;
      if (cached) c.cached++;
      if (entry.validity === "invalid") c.invalid++;
      if (entry.validity === "error") c.errors++;
      update();
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
