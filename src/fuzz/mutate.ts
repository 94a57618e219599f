// Mutations of a case's folder, chosen by a seeded PRNG: byte-level first (flip, insert, delete,
// duplicate, truncate, splice, \r, BOM, NUL, bad UTF-8, lone-surrogate escapes, odd numbers,
// duplicate and prototype keys), then lines, whole files, and two structure-aware ones that
// re-chain the journal or re-head its summary, so a mutant gets past the chain to the rules behind.

import { createHash } from "node:crypto";
import { completeLines } from "./json.js";
import { canPlace, file, type Tree } from "./tree.js";
import { int, pick, weighted, type Rng } from "./random.js";

export interface Donors {
  /** Files of every base of every profile: spliced into, or copied over, the case's files. */
  all: readonly Tree[];
  /** The other bases of the case's profile: a same-named file from one of them replaces the case's. */
  siblings: readonly Tree[];
  /** Names an extra entry may take (each profile's: none may make discovery find another bundle). */
  extraNames: readonly string[];
}

/** One mutation: applied in place, it returns what it did (for the reproduction), or null when it cannot apply. */
type Op = (r: Rng, tree: Tree, d: Donors) => string | null;

const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
const latin1 = (b: Buffer) => b.toString("latin1");
const splice = (b: Buffer, at: number, cut: number, insert: Uint8Array = Buffer.alloc(0)) =>
  Buffer.concat([b.subarray(0, at), insert, b.subarray(at + cut)]);

const filesOf = (tree: Tree): string[] => [...tree].filter(([, n]) => n.kind === "file").map(([p]) => p);
const bytesOf = (tree: Tree, p: string): Buffer => {
  const n = tree.get(p);
  return n?.kind === "file" ? n.bytes : Buffer.alloc(0);
};

/** A byte-level op on one file: `fn` returns the new bytes and a detail, or null. */
const onFile =
  (name: string, fn: (r: Rng, b: Buffer, d: Donors) => [Buffer, string] | null): Op =>
  (r, tree, d) => {
    const files = filesOf(tree);
    if (files.length === 0) return null;
    const p = pick(r, files);
    const before = bytesOf(tree, p);
    const out = fn(r, before, d);
    if (out === null || out[0].equals(before)) return null; // a no-op: another op is drawn
    tree.set(p, file(out[0]));
    return `${name} ${JSON.stringify(p)} ${out[1]}`.trimEnd();
  };

/** Positions in `b` where `re` matches (on its latin1 text, so indices are byte offsets). */
function matches(b: Buffer, re: RegExp): RegExpExecArray[] {
  return [...latin1(b).matchAll(new RegExp(re.source, "g"))];
}

const INTERESTING = [
  0x00, 0x09, 0x0a, 0x0d, 0x20, 0x22, 0x2c, 0x2d, 0x2e, 0x30, 0x31, 0x39, 0x3a, 0x45, 0x5b, 0x5c, 0x5d, 0x65, 0x7b,
  0x7d, 0x7f, 0x80, 0xc0, 0xff,
];
const TOKENS = [
  '"',
  "{",
  "}",
  "[",
  "]",
  ",",
  ":",
  "\\",
  "null",
  "true",
  "false",
  "0",
  "-",
  "1e",
  "\\u",
  "\n",
  " ",
  "\t",
  '""',
  "{}",
];
const BAD_UTF8 = [
  [0xff],
  [0x80],
  [0xc0, 0x80],
  [0xe0, 0x80, 0x80],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xe2, 0x82],
  [0xc3],
];
const SPECIAL = [[0x0d], [0xef, 0xbb, 0xbf], [0x00], [0x09], [0xe2, 0x80, 0xa8], [0xc2, 0xa0], [0xc2, 0x85]];
const NUMBERS = [
  "1e999",
  "-1e999",
  "NaN",
  "Infinity",
  "-Infinity",
  "1.0",
  "1e3",
  "1E400",
  "9007199254740993",
  "-0",
  "0.0",
  "01",
  "0x10",
  "123456789012345678901234567890",
  "1e-400",
  "-1",
  "2",
  "4294967296",
  ".5",
  "1.",
  "+1",
  "1_0",
];
const KEY = /"([A-Za-z_][A-Za-z0-9_]{0,39})":/;
const SCALAR = /^(?:true|false|null|-?[0-9][0-9.eE+-]*|"(?:[^"\\]|\\.)*")/;
const PROTO_VALUES = ['{"victory":true}', "null", "{}", "1", "[]", '{"rewards":{"reward":1}}', '{"pass":true}', '"x"'];

const BYTE_OPS: [number, Op][] = [
  [
    6,
    onFile("flip-bit", (r, b) => {
      if (b.length === 0) return null;
      const at = int(r, b.length);
      const bit = int(r, 8);
      const out = Buffer.from(b);
      out[at] = out[at]! ^ (1 << bit);
      return [out, `@${at} bit ${bit}`];
    }),
  ],
  [
    4,
    onFile("set-byte", (r, b) => {
      if (b.length === 0) return null;
      const at = int(r, b.length);
      const v = r() < 0.6 ? pick(r, INTERESTING) : int(r, 256);
      const out = Buffer.from(b);
      out[at] = v;
      return [out, `@${at} = 0x${v.toString(16)}`];
    }),
  ],
  [
    4,
    onFile("insert", (r, b) => {
      const at = int(r, b.length + 1);
      const ins =
        r() < 0.5
          ? Buffer.from(pick(r, TOKENS))
          : Buffer.from(Array.from({ length: 1 + int(r, 8) }, () => int(r, 256)));
      return [splice(b, at, 0, ins), `@${at} ${JSON.stringify(latin1(ins))}`];
    }),
  ],
  [
    4,
    onFile("delete", (r, b) => {
      if (b.length === 0) return null;
      const at = int(r, b.length);
      const n = 1 + int(r, Math.min(r() < 0.8 ? 8 : 256, b.length - at));
      return [splice(b, at, n), `@${at} ${n} bytes`];
    }),
  ],
  [
    3,
    onFile("duplicate", (r, b) => {
      if (b.length === 0) return null;
      const at = int(r, b.length);
      const n = 1 + int(r, Math.min(128, b.length - at));
      return [splice(b, at + n, 0, b.subarray(at, at + n)), `@${at} ${n} bytes`];
    }),
  ],
  [
    3,
    onFile("truncate", (r, b) => {
      if (b.length === 0) return null;
      const at = r() < 0.5 ? int(r, b.length) : Math.max(0, b.length - 1 - int(r, 40));
      return [b.subarray(0, at), `@${at}`];
    }),
  ],
  [
    3,
    onFile("splice", (r, b, d) => {
      const donor = pick(r, d.all);
      const files = filesOf(donor);
      if (files.length === 0) return null;
      const from = pick(r, files);
      const src = bytesOf(donor, from);
      const s = int(r, src.length + 1);
      const piece = src.subarray(s, s + 1 + int(r, 256));
      const at = int(r, b.length + 1);
      const over = r() < 0.5 ? Math.min(piece.length, b.length - at) : 0;
      return [
        splice(b, at, over, piece),
        `@${at} ${piece.length} bytes of ${JSON.stringify(from)} (${over > 0 ? "over" : "inserted"})`,
      ];
    }),
  ],
  [
    3,
    onFile("special", (r, b) => {
      const seq = Buffer.from(pick(r, SPECIAL));
      const newlines = matches(b, /\n/);
      // Most often where the character does harm quietly: before a \n (CRLF) or at a line start (BOM).
      const at =
        newlines.length > 0 && r() < 0.5
          ? pick(r, newlines).index! + (r() < 0.5 ? 0 : 1)
          : r() < 0.2
            ? 0
            : int(r, b.length + 1);
      return [splice(b, at, 0, seq), `@${at} ${seq.toString("hex")}`];
    }),
  ],
  [
    1,
    onFile("crlf", (_r, b) =>
      b.includes(0x0a) ? [Buffer.from(latin1(b).replace(/\n/g, "\r\n"), "latin1"), "every line"] : null,
    ),
  ],
  [
    3,
    onFile("bad-utf8", (r, b) => {
      const seq = Buffer.from(pick(r, BAD_UTF8));
      const at = int(r, b.length + 1);
      return [splice(b, at, 0, seq), `@${at} ${seq.toString("hex")}`];
    }),
  ],
  [
    2,
    onFile("surrogate-escape", (r, b) => {
      const quotes = matches(b, /"/);
      if (quotes.length === 0) return null;
      const at = pick(r, quotes).index! + 1;
      const esc = pick(r, ["\\ud800", "\\udfff", "\\uD83D", "\\ude00x", "\\ud83d\\ude00"]);
      return [splice(b, at, 0, Buffer.from(esc)), `@${at} ${esc}`];
    }),
  ],
  [
    4,
    onFile("number", (r, b) => {
      const nums = matches(b, /(?<=[:[,\s])-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/);
      if (nums.length === 0) return null;
      const m = pick(r, nums);
      const v = pick(r, NUMBERS);
      return [splice(b, m.index!, m[0].length, Buffer.from(v)), `@${m.index} ${m[0]} -> ${v}`];
    }),
  ],
  [
    3,
    onFile("duplicate-key", (r, b) => {
      const keys = matches(b, KEY);
      if (keys.length === 0) return null;
      const m = pick(r, keys);
      const after = latin1(b)
        .slice(m.index! + m[0].length, m.index! + m[0].length + 200)
        .trimStart();
      const own = SCALAR.exec(after)?.[0];
      const value =
        own !== undefined && r() < 0.4 ? own : pick(r, ["true", "false", "null", "0", "1", '"x"', "{}", "[]"]);
      // Sometimes spelled with an escape: keys are compared after unescaping.
      const key = r() < 0.3 ? `\\u00${m[1]!.charCodeAt(0).toString(16)}${m[1]!.slice(1)}` : m[1]!;
      const ins = `"${key}":${value},`;
      return [splice(b, m.index!, 0, Buffer.from(ins)), `@${m.index} ${ins}`];
    }),
  ],
  [
    3,
    onFile("proto-key", (r, b) => {
      const name = pick(r, ["__proto__", "constructor", "__proto__", "prototype", "toString", "hasOwnProperty"]);
      if (r() < 0.4) {
        const keys = matches(b, KEY);
        if (keys.length === 0) return null;
        const m = pick(r, keys);
        return [splice(b, m.index!, m[0].length, Buffer.from(`"${name}":`)), `@${m.index} ${m[1]} renamed ${name}`];
      }
      const braces = matches(b, /\{/);
      if (braces.length === 0) return null;
      const at = pick(r, braces).index! + 1;
      const ins = `"${name}":${pick(r, PROTO_VALUES)},`;
      return [splice(b, at, 0, Buffer.from(ins)), `@${at} ${ins}`];
    }),
  ],
  [
    2,
    onFile("escape-key", (r, b) => {
      const keys = matches(b, KEY);
      if (keys.length === 0) return null;
      const m = pick(r, keys);
      const k = m[1]!;
      const i = int(r, k.length);
      const esc = `\\u${k.charCodeAt(i).toString(16).padStart(4, "0")}`;
      return [splice(b, m.index! + 1 + i, 1, Buffer.from(esc)), `@${m.index} ${k} spelled with ${esc}`];
    }),
  ],
  [
    2,
    onFile("whitespace", (r, b) => {
      const spots = matches(b, /[,:{[]/);
      if (spots.length === 0) return null;
      const at = pick(r, spots).index! + 1;
      const ws = pick(r, [" ", "\n", "  ", "\t"]);
      return [splice(b, at, 0, Buffer.from(ws)), `@${at} ${JSON.stringify(ws)}`];
    }),
  ],
  [
    3,
    onFile("bool", (r, b) => {
      const bools = matches(b, /\b(?:true|false)\b/);
      if (bools.length === 0) return null;
      const m = pick(r, bools);
      const v = m[0] === "true" ? "false" : "true";
      return [splice(b, m.index!, m[0].length, Buffer.from(v)), `@${m.index} ${m[0]} -> ${v}`];
    }),
  ],
  [
    3,
    onFile("digit", (r, b) => {
      const digits = matches(b, /[0-9]/);
      if (digits.length === 0) return null;
      const m = pick(r, digits);
      const v = String((Number(m[0]) + 1 + int(r, 9)) % 10);
      return [splice(b, m.index!, 1, Buffer.from(v)), `@${m.index} ${m[0]} -> ${v}`];
    }),
  ],
  [
    0.5,
    onFile("long-line", (r, b) => {
      const at = int(r, b.length + 1);
      const n = 1024 * 1024 + int(r, 64) - 32;
      return [splice(b, at, 0, Buffer.alloc(n, r() < 0.5 ? 0x20 : 0x61)), `@${at} ${n} bytes`];
    }),
  ],
];

const NL = Buffer.from("\n");

/** Line ops on a file that holds at least one \n (lines keep their \n; a torn tail stays last). */
const onLines = (name: string, fn: (r: Rng, lines: Buffer[]) => string | null): Op =>
  onFile(name, (r, b) => {
    const lines = completeLines(b).map((l) => Buffer.concat([l, NL]));
    if (lines.length === 0) return null;
    const tail = b.subarray(lines.reduce((n, l) => n + l.length, 0));
    const detail = fn(r, lines);
    return detail === null ? null : [Buffer.concat([...lines, tail]), detail];
  });

const LINE_OPS: [number, Op][] = [
  [
    3,
    onLines("swap-lines", (r, ls) => {
      if (ls.length < 2) return null;
      const i = int(r, ls.length);
      const j = (i + 1 + int(r, ls.length - 1)) % ls.length;
      [ls[i], ls[j]] = [ls[j]!, ls[i]!];
      return `${i + 1} and ${j + 1}`;
    }),
  ],
  [
    3,
    onLines("duplicate-line", (r, ls) => {
      const i = int(r, ls.length);
      ls.splice(i, 0, ls[i]!);
      return `${i + 1}`;
    }),
  ],
  [
    3,
    onLines("drop-line", (r, ls) => {
      const i = r() < 0.3 ? ls.length - 1 : int(r, ls.length);
      ls.splice(i, 1);
      return `${i + 1}`;
    }),
  ],
  [
    1,
    onLines("move-line", (r, ls) => {
      const i = int(r, ls.length);
      const [l] = ls.splice(i, 1);
      const j = int(r, ls.length + 1);
      ls.splice(j, 0, l!);
      return `${i + 1} to ${j + 1}`;
    }),
  ],
  [
    1,
    onLines("blank-line", (r, ls) => {
      const i = int(r, ls.length + 1);
      ls.splice(i, 0, Buffer.from("\n"));
      return `before ${i + 1}`;
    }),
  ],
];

/**
 * Rewrite each journal line's seq and prev so the chain holds over whatever the lines now say: the
 * agent rewriting its own trace (the world log is the services', never rewritten here).
 */
const rechain: Op = (_r, tree) => {
  const p = "journal.jsonl";
  if (tree.get(p)?.kind !== "file") return null;
  const b = bytesOf(tree, p);
  const lines = completeLines(b);
  const out: Buffer[] = [];
  let prev = "0".repeat(64);
  lines.forEach((l, i) => {
    const line = Buffer.from(
      latin1(l)
        .replace(/"seq":-?[0-9]+/, `"seq":${i}`)
        .replace(/"prev":"[0-9a-f]{64}"/, `"prev":"${prev}"`),
      "latin1",
    );
    prev = sha(line);
    out.push(line, NL);
  });
  out.push(b.subarray(lines.reduce((n, l) => n + l.length + 1, 0))); // the torn tail, if any
  const chained = Buffer.concat(out);
  if (chained.equals(b)) return null; // the chain already held: nothing to rewrite
  tree.set(p, file(chained));
  return `rechain ${JSON.stringify(p)}`;
};

/** Rewrite summary.json's journal record count and head to match the journal as it now is (the harness's summary of the agent's rewrite). */
const rehead: Op = (_r, tree) => {
  const summary = tree.get("summary.json");
  const journal = tree.get("journal.jsonl");
  if (summary?.kind !== "file" || journal?.kind !== "file") return null;
  const lines = completeLines(journal.bytes);
  const head = lines.length === 0 ? "0".repeat(64) : sha(lines[lines.length - 1]!);
  const text = latin1(summary.bytes).replace(
    /"journal":\{"records":[0-9]+,"head":"[0-9a-f]{64}"\}/,
    `"journal":{"records":${lines.length},"head":"${head}"}`,
  );
  const headed = Buffer.from(text, "latin1");
  if (headed.equals(summary.bytes)) return null;
  tree.set("summary.json", file(headed));
  return "rehead summary.json";
};

const EXTRA_CONTENT = [
  '{"victory":true}',
  '{"reward": 1.0}',
  "1\n",
  "1.0",
  "",
  "{}",
  "null\n",
  "\u0000\u0001\u0002",
  '{"pass":true}\n',
];

const FILE_OPS: [number, Op][] = [
  [
    3,
    (r, tree) => {
      if (tree.size === 0) return null;
      const p = pick(r, [...tree.keys()]);
      tree.delete(p);
      return `delete ${JSON.stringify(p)}`;
    },
  ],
  [
    3,
    (r, tree, d) => {
      const p = pick(r, d.extraNames);
      if (tree.has(p) || !canPlace(tree, p)) return null;
      const how = int(r, 3);
      const donor = pick(r, d.all);
      const donorFiles = filesOf(donor);
      const bytes =
        how === 0
          ? Buffer.from(Array.from({ length: int(r, 64) }, () => int(r, 256)))
          : how === 1 && donorFiles.length > 0
            ? bytesOf(donor, pick(r, donorFiles))
            : Buffer.from(pick(r, EXTRA_CONTENT));
      tree.set(p, file(bytes));
      return `add ${JSON.stringify(p)} (${bytes.length} bytes)`;
    },
  ],
  [
    3,
    (r, tree, d) => {
      const files = filesOf(tree);
      if (files.length === 0) return null;
      const p = pick(r, files);
      // Most often the same-named file of a sibling base (a summary from another run), else any file.
      const same = d.siblings.flatMap((s) => (s.get(p)?.kind === "file" ? [s.get(p)!] : []));
      const donor = pick(r, [tree, ...d.all]);
      const donorFiles = filesOf(donor);
      const sibling = r() < 0.6 && same.length > 0;
      if (!sibling && donorFiles.length === 0) return null;
      const n = sibling ? pick(r, same) : donor.get(pick(r, donorFiles))!;
      if (n.kind === "file" && n.bytes.equals(bytesOf(tree, p))) return null;
      tree.set(p, n);
      return `replace ${JSON.stringify(p)} with ${sibling ? "a sibling base's" : "another file's"} content`;
    },
  ],
  [
    1,
    (r, tree) => {
      const files = filesOf(tree);
      if (files.length === 0) return null;
      const p = pick(r, files);
      tree.set(p, { kind: "dir" });
      return `to-folder ${JSON.stringify(p)}`;
    },
  ],
  [
    1,
    (r, tree, d) => {
      const p = pick(r, d.extraNames);
      if (tree.has(p) || !canPlace(tree, p)) return null;
      tree.set(p, { kind: "dir" });
      return `add-folder ${JSON.stringify(p)}`;
    },
  ],
  [
    1,
    (r, tree, d) => {
      const files = filesOf(tree);
      const p = files.length > 0 && r() < 0.6 ? pick(r, files) : pick(r, d.extraNames);
      if (!tree.has(p) && !canPlace(tree, p)) return null;
      // Never followed, whatever they point at: a sibling, something outside, nothing, the folder.
      const target = pick(r, [
        ...files.map((f) => f.split("/").pop()!),
        "../../../etc/hostname",
        "/etc/hostname",
        "missing",
        ".",
      ]);
      tree.set(p, { kind: "symlink", target });
      return `link ${JSON.stringify(p)} to ${JSON.stringify(target)}`;
    },
  ],
  [
    1,
    (r, tree, d) => {
      const files = filesOf(tree);
      if (files.length === 0) return null;
      const p = pick(r, files);
      const to = pick(r, d.extraNames);
      if (to === p) return null;
      const n = tree.get(p)!;
      tree.delete(p);
      if (tree.has(to) || !canPlace(tree, to)) {
        tree.set(p, n);
        return null;
      }
      tree.set(to, n);
      return `rename ${JSON.stringify(p)} to ${JSON.stringify(to)}`;
    },
  ],
];

const ALL: [number, Op][] = [...BYTE_OPS, ...LINE_OPS, [3, rechain], [2, rehead], ...FILE_OPS];

/** Ops that rewrite evidence consistently, as its writer could (the contract's unkeyed chain cannot tell). */
const REWRITES = new Set<Op>([rechain, rehead]);

/**
 * Apply 1–3 mutations (ops that cannot apply are drawn again): what was done, and whether the
 * journal was re-chained or its summary re-headed after.
 */
export function mutate(r: Rng, tree: Tree, d: Donors): { ops: string[]; rewritten: boolean } {
  const ops: string[] = [];
  let rewritten = false;
  const want = 1 + int(r, 3);
  for (let tries = 0; ops.length < want && tries < 50; tries++) {
    const op = weighted(r, ALL);
    const label = op(r, tree, d);
    if (label === null) continue;
    ops.push(label);
    rewritten ||= REWRITES.has(op);
  }
  return { ops, rewritten };
}
