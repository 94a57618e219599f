// The shipped CLI and its pool worker pre-bundled (dist/bundle/, from tsc's dist/): one module graph
// of ~60 chunks instead of ~300 files, which is most of what a small run's start-up spends on
// resolving and reading modules (docs/development.md "Start-up of assay score"). Both entries share
// their chunks, so a run scored in the main thread loads the worker's code once. Only zod is bundled
// of the dependencies (95 files of the hot path); the others stay packages: native or WebAssembly
// ones, piscina (which starts a worker file of its own, found beside its module), and those loaded
// only by some commands. Paths the code finds from its own module (../../docs, the package root,
// ./worker.js and ./entry.cjs) hold in dist/bundle/ as in dist/<folder>/.
import { copyFileSync } from "node:fs";

const BUNDLED = new Set(["zod"]);
const packageOf = (id) => (id.startsWith("@") ? id.split("/").slice(0, 2).join("/") : id.split("/")[0]);

export default {
  input: { cli: "dist/cli.js", worker: "dist/pool/worker.js" },
  platform: "node",
  external: (id) =>
    !id.startsWith(".") && !id.startsWith("/") && !id.startsWith("node:") && !BUNDLED.has(packageOf(id)),
  output: { dir: "dist/bundle", format: "esm", cleanDir: true },
  plugins: [
    {
      name: "pool-entry",
      writeBundle: () => copyFileSync("dist/pool/entry.cjs", "dist/bundle/entry.cjs"),
    },
  ],
};
