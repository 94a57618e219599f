// in-toto's `dirHash` (Go's dirhash Hash1, hex): SHA-256 over the lines "<sha256 hex>  <path>\n" of a
// folder's regular files, sorted by path in byte order — what `find . -type f | cut -c3- | LC_ALL=C
// sort | xargs -r sha256sum | sha256sum` prints. §15.4: the attesting assay's own code, the files
// `npm pack` ships (package.json's `files`, package.json and README), never node_modules/.
import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { byteCompare } from "../core/text.js";
import { readChunks } from "./bundle-source.js";

/** The package folder of this installation (dist/io/ → ../../). */
export const PACKAGE_ROOT = new URL("../../", import.meta.url).pathname;

/** Every regular file below `rel` (a file or a folder) of `root`, as paths relative to root; links are not followed. */
function* filesBelow(root: string, rel: string): Generator<string> {
  const st = lstatSync(join(root, rel), { throwIfNoEntry: false });
  if (st === undefined) return;
  if (st.isFile()) yield rel;
  else if (st.isDirectory())
    for (const name of readdirSync(join(root, rel)))
      if (name !== "node_modules") yield* filesBelow(root, `${rel}/${name}`);
}

const fileSha256 = (file: string): string => {
  const h = createHash("sha256");
  for (const c of readChunks(file)) h.update(c);
  return h.digest("hex");
};

/** dirHash over the files `npm pack` ships of the package at `root`. A name holding a newline cannot be one line: refused. */
export function packageDirHash(root = PACKAGE_ROOT): string {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { files?: string[] };
  const listed = ["package.json", "README.md", ...(manifest.files ?? [])];
  const files = [...new Set(listed.flatMap((f) => [...filesBelow(root, f)]))].sort(byteCompare);
  const h = createHash("sha256");
  for (const f of files) {
    if (/[\n\\]/.test(f)) throw new Error(`${f}: a file name dirHash cannot write on one line`);
    h.update(`${fileSha256(join(root, f))}  ${f}\n`);
  }
  return h.digest("hex");
}
