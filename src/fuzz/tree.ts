// A fuzz case's folder as data: relative path → file, empty folder or symbolic link (parent
// folders implied). Read in memory as a BundleSource, or written to disk for the pipeline and for
// `assay verify` when a case fails.

import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { BundleEntryInfo, BundleSource } from "../core/folder.js";
import { byteCompare } from "../core/text.js";

export type Node = { kind: "file"; bytes: Buffer } | { kind: "dir" } | { kind: "symlink"; target: string };
export type Tree = Map<string, Node>;

export const file = (bytes: Buffer | string): Node => ({
  kind: "file",
  bytes: Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes),
});
export const treeOf = (files: ReadonlyMap<string, Buffer>): Tree => new Map([...files].map(([p, b]) => [p, file(b)]));

/** Where a new node may go: no ancestor is a file or link, and nothing lies below it. */
export function canPlace(tree: Tree, path: string): boolean {
  const parts = path.split("/");
  for (let i = 1; i < parts.length; i++) {
    const up = tree.get(parts.slice(0, i).join("/"));
    if (up !== undefined && up.kind !== "dir") return false;
  }
  for (const p of tree.keys()) if (p.startsWith(`${path}/`)) return false;
  return true;
}

/** The folder's entries as a lister reports them: implied folders too, in byte order of path. */
export function treeEntries(tree: Tree): BundleEntryInfo[] {
  const kinds = new Map<string, BundleEntryInfo>();
  for (const [path, n] of tree) {
    const parts = path.split("/");
    for (let i = 1; i < parts.length; i++) {
      const up = parts.slice(0, i).join("/");
      if (!kinds.has(up)) kinds.set(up, { path: up, kind: "dir", size: 0 });
    }
    const size = n.kind === "file" ? n.bytes.length : n.kind === "symlink" ? Buffer.byteLength(n.target) : 0;
    kinds.set(path, { path, kind: n.kind, size });
  }
  return [...kinds.values()].sort((a, b) => byteCompare(a.path, b.path));
}

/**
 * The tree as the scorers read it. `chunk`: files come in pieces of at most this many bytes, so
 * a line split across reads is fuzzed too (the disk reader's pieces are 1 MiB).
 */
export function treeSource(tree: Tree, chunk = Infinity): BundleSource {
  return {
    entries: treeEntries(tree),
    *read(path) {
      const n = tree.get(path);
      if (n?.kind !== "file") throw new Error(`the scorer read ${JSON.stringify(path)}, which is not a regular file`);
      if (n.bytes.length <= chunk) yield n.bytes;
      else for (let i = 0; i < n.bytes.length; i += chunk) yield n.bytes.subarray(i, i + chunk);
    },
  };
}

/** Write the tree under `dir` (created). Links are written as they are: their targets may not exist. */
export function writeTree(dir: string, tree: Tree): void {
  mkdirSync(dir, { recursive: true });
  for (const [path, n] of tree) {
    const at = join(dir, path);
    mkdirSync(n.kind === "dir" ? at : dirname(at), { recursive: true });
    if (n.kind === "file") writeFileSync(at, n.bytes);
    else if (n.kind === "symlink") symlinkSync(n.target, at);
  }
}
