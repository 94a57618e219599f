// README's install, tested without touching the machine: `npm install -g .` from the checkout,
// into a scratch prefix (npm links the checkout there: PREFIX/bin/assay → its dist/cli.js).
import { execFileSync } from "node:child_process";
import { join } from "node:path";

export const ROOT = new URL("../..", import.meta.url).pathname;

/** `npm install -g --prefix PREFIX <checkout>` (offline: a folder install fetches nothing); returns PREFIX/bin. */
export function installInto(prefix: string): string {
  execFileSync("npm", ["install", "-g", "--prefix", prefix, "--offline", "--no-audit", "--no-fund", ROOT], {
    cwd: prefix,
    stdio: "ignore",
  });
  return join(prefix, "bin");
}
