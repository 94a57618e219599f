// The canonical comparison: JSON.stringify(doc, null, 2) byte for byte, written in pieces (a
// flipped list of a million trials is never one string).
import type { Comparison, RankingDocument } from "../../core/compare/schema.js";
import { pieces } from "../json.js";

export function* render(doc: Comparison | RankingDocument): Generator<string> {
  yield* pieces(doc, 0);
  yield "\n";
}
