// Workers: a SWE-bench instance folder (`<model>/<instance_id>/`) → its entry; what the run's final
// report and predictions say of it is judged later, by the batch rules (batch.ts). No seal.
import { createHash } from "node:crypto";
import type { DatasetFile } from "../../core/folder.js";
import { readChunks } from "../../io/bundle-source.js";
import type { FolderScorer } from "../scorer.js";
import { readDataset, type DatasetTests } from "./dataset.js";
import { scoreSweBenchInstance } from "./instance-entry.js";

/** --dataset as this worker read it, by its digest: read once per worker, on its first instance. */
const datasets = new Map<string, ReadonlyMap<string, DatasetTests>>();

function datasetOf(d: DatasetFile | undefined): ReadonlyMap<string, DatasetTests> | undefined {
  if (d === undefined) return undefined;
  const known = datasets.get(d.sha256);
  if (known !== undefined) return known;
  // The main thread checked these bytes before the run: other bytes now are a dataset changed under it.
  const hash = createHash("sha256");
  for (const c of readChunks(d.file)) hash.update(c);
  if (hash.digest("hex") !== d.sha256) throw new Error(`the dataset ${d.file} changed since the run began`);
  const r = readDataset(d.file);
  if (r.read !== "ok") throw new Error(r.why);
  datasets.set(d.sha256, r.instances);
  return r.instances;
}

export const sweBenchScorer: FolderScorer = {
  form: "folder",
  score: (src, options) => scoreSweBenchInstance(src, datasetOf(options.dataset)),
};
