// Every kind's scorer, loaded at once (kinds/list.ts): in-process scoring (`assay verify`, `assay
// seal`, the library) takes them whole. Pool workers load theirs one by one (pool/worker.ts).
import type { KindName } from "./declared.js";
import { KIND_LIST } from "./list.js";
import type { Scorer } from "./scorer.js";

export const SCORERS: Readonly<Record<KindName, Scorer>> = Object.fromEntries(
  await Promise.all(KIND_LIST.map(async (k) => [k.declaration.name, await k.scorer()] as const)),
) as Record<KindName, Scorer>;
