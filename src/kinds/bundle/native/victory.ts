// Sil-Q's native ending and victory (contract §4.3). Only the game's own state decides:
// screen text, names, died_from or reaching depth 20 never award a win.

import type { InventoryItem, NativeState } from "./records.js";

const SILMARIL = { tval: 39, sval: 9 };
const CROWN = { tval: 33, sval: 50, name1: [176, 177, 178] };

/** A slot that holds a quest item. Quantity 0 is valid state (a consumed item) but not possession. */
export function holdsQuestItem(item: InventoryItem): boolean {
  if (item.number <= 0) return false;
  if (item.tval === SILMARIL.tval && item.sval === SILMARIL.sval) return item.k_idx > 0;
  return item.tval === CROWN.tval && item.sval === CROWN.sval && CROWN.name1.includes(item.name1);
}

/** Standard rules: a normal game with no cheat, wizard or debug flag. */
export const standardRules = (s: NativeState): boolean =>
  s.game_type === 0 && (s.noscore & 0xf) === 0 && !s.wizard && !s.score_options;

/**
 * Victory, deadline aside: `do_cmd_escape` sets `escaped` and `is_dead` and clears `playing`,
 * on the surface, with a Silmaril held (the `silmarils` counter never proves possession).
 */
export const victoriousState = (s: NativeState): boolean =>
  s.escaped &&
  s.is_dead &&
  !s.playing &&
  s.depth === 0 &&
  s.character_generated &&
  standardRules(s) &&
  s.inventory.some(holdsQuestItem);

/** The ending wins only when it was accepted by the deadline. */
export const isVictory = (ending: { at: number; state: NativeState }, deadline: number): boolean =>
  ending.at <= deadline && victoriousState(ending.state);
