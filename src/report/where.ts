// Where a bundle lies, as a report names it: below the root it was found under (a CI page shows
// `game/exp/t0001/a1`, not a runner's temporary folder).

/** `path` relative to the longest root it lies below; a root that is itself a bundle or a log keeps its path as given. */
export function relativeTo(path: string, roots: readonly string[]): string {
  let best = "";
  for (const r of roots) {
    const prefix = r.endsWith("/") ? r : `${r}/`;
    if (path.startsWith(prefix) && prefix.length > best.length && path.length > prefix.length) best = prefix;
  }
  return best === "" ? path : path.slice(best.length);
}
