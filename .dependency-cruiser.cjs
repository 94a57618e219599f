// The floors of src/ (docs/development.md, "Layers"), checked by `npm run lint` (part of `npm test`):
// core is the ground floor; a kind is one folder over core; one list (kinds/list.ts) names every kind.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-runtime-circle",
      severity: "error",
      comment: "A module must not load itself through others at run time (type-only and lazy imports aside).",
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ["type-only", "dynamic-import"] } },
    },
    {
      name: "core-is-the-ground-floor",
      severity: "error",
      comment:
        "core/ holds the pure rules: it imports core, the error type and the kinds' declarations (data), nothing else of src and nothing with effects.",
      from: { path: "^src/core/" },
      to: {
        pathNot: [
          "^src/core/",
          "^src/errors\\.ts$",
          "^src/kinds/(list|declared)\\.ts$",
          "^src/kinds/[^/]+/declaration\\.ts$",
          "^node_modules/",
          "^(node:)?(crypto|buffer|path|util)$",
        ],
      },
    },
    {
      name: "core-has-no-effects",
      severity: "error",
      comment: "core/ reads no file and starts no process.",
      from: { path: "^src/core/" },
      to: { path: "^(node:)?(fs|fs/promises|child_process|worker_threads|net|http|https|os|process)$" },
    },
    {
      name: "a-declaration-is-data",
      severity: "error",
      comment:
        "A kind's declaration (and the entry schema it carries) is read by core and by both threads: data, importing nothing of src at run time but its entry schema.",
      from: { path: "^src/kinds/([^/]+)/(declaration|entry)\\.ts$" },
      to: { path: "^src/", pathNot: ["^src/kinds/$1/entry\\.ts$"], dependencyTypesNot: ["type-only"] },
    },
    {
      name: "a-kind-stands-on-core",
      severity: "error",
      comment:
        "A kind imports core, io and its own folder; never the pipeline, the pool, reports, analyses, the CLI or another kind.",
      from: { path: "^src/kinds/([^/]+)/" },
      to: {
        path: "^src/",
        pathNot: [
          "^src/core/",
          "^src/io/",
          "^src/errors\\.ts$",
          "^src/kinds/$1/",
          "^src/kinds/(kind|scorer|recogniser|words|pack|declared|list|synth)\\.ts$",
        ],
      },
    },
    {
      name: "one-list-names-the-kinds",
      severity: "error",
      comment:
        "Outside the kinds' own folders, only the list (kinds/list.ts) imports a kind's folder: the rest look kinds up through it. The library's API (index.ts) and the tools that build or measure a kind's evidence (synth, fuzz, bench) are above the list.",
      from: {
        path: "^src/",
        pathNot: ["^src/kinds/list\\.ts$", "^src/kinds/([^/]+)/", "^src/index\\.ts$", "^src/(synth|fuzz|bench)/"],
      },
      to: { path: "^src/kinds/[^/]+/", pathNot: ["^src/kinds/[^/]+/declaration\\.ts$"] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
  },
};
