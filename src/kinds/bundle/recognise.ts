// Discovery of assay bundles (contract §1): a folder holding journal.jsonl, whatever else it holds
// (of any entry kind, as a listing would show: a journal that is a link is still a bundle, judged
// UNSAFE_PATH when scored).
import type { Recogniser } from "../recogniser.js";

const JOURNAL = "journal.jsonl";

export const bundleRecogniser: Recogniser = {
  description: "a bundle (journal.jsonl)",
  markers: [JOURNAL],
  leafMarker: JOURNAL,
  folder: (_dir, l) => (l.has(JOURNAL) ? "leaf" : null),
};
