// Discovery (§1) on real folders, and the limits that keep a hostile bundle from costing memory.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_FINDINGS, scoreBundle } from "../src/kinds/bundle/score.js";
import type { BundleSource } from "../src/core/folder.js";
import { discover, DiscoveryError } from "../src/io/discover.js";
import { scoreRoots } from "../src/pipeline/score.js";
import { bundle, game, writeFiles } from "./helpers/bundle.js";
import { scratch } from "./helpers/shared.js";

const { dir: tmp } = scratch("assay-discover-");
const put = writeFiles;

beforeAll(() => {
  put(join(tmp, "root/e/t1/a1"), bundle(game({ trial: "t1" })));
  put(join(tmp, "root/e/t2/a1"), bundle(game({ trial: "t2", seed: "11".repeat(8) })));
  // A folder inside a bundle that looks like a bundle: never descended into.
  put(join(tmp, "root/e/t2/a1/nested"), bundle(game({ trial: "t9", seed: "99".repeat(8) })));
  put(join(tmp, "elsewhere/e/t3/a1"), bundle(game({ trial: "t3", seed: "33".repeat(8) })));
  symlinkSync(join(tmp, "elsewhere"), join(tmp, "root/linked")); // a symlinked directory below a root
  symlinkSync(join(tmp, "root"), join(tmp, "root-link")); // a root given as a symlink
});

describe("discovery", () => {
  const paths = (roots: string[]) => [...discover(roots)].map((f) => f.path);

  it("finds bundles, never descends into one, never follows a symlinked directory below a root", async () => {
    expect(paths([join(tmp, "root")])).toEqual([join(tmp, "root/e/t1/a1"), join(tmp, "root/e/t2/a1")]);
  });
  it("follows a root given as a symlink and reports paths under the root as given", async () => {
    expect(paths([join(tmp, "root-link") + "/"])).toEqual([
      join(tmp, "root-link/e/t1/a1"),
      join(tmp, "root-link/e/t2/a1"),
    ]);
  });
  it("finds each directory once when roots overlap", async () => {
    const found = paths([join(tmp, "root/e/t1"), join(tmp, "root"), join(tmp, "root-link")]);
    expect(found).toEqual([join(tmp, "root/e/t1/a1"), join(tmp, "root/e/t2/a1")]);
  });
  it("a root may itself be a bundle", async () => {
    expect(paths([join(tmp, "root/e/t1/a1")])).toEqual([join(tmp, "root/e/t1/a1")]);
  });
  it("a folder holding an entry named journal.jsonl of any kind is a bundle, as its listing would say (told by one lstat)", async () => {
    const root = join(tmp, "kinds");
    mkdirSync(join(root, "as-folder", "journal.jsonl"), { recursive: true });
    mkdirSync(join(root, "as-link"), { recursive: true });
    symlinkSync(join(tmp, "nowhere"), join(root, "as-link", "journal.jsonl")); // dangling
    put(join(root, "plain", "deeper", "b"), bundle(game({ trial: "t4", seed: "44".repeat(8) })));
    mkdirSync(join(root, "plain", "empty"), { recursive: true });
    expect(paths([root])).toEqual([join(root, "as-folder"), join(root, "as-link"), join(root, "plain/deeper/b")]);
    // With two roots a bundle's identity is still checked: given again inside the other, it is found once.
    expect(paths([join(root, "plain/deeper/b"), root])).toEqual([
      join(root, "plain/deeper/b"),
      join(root, "as-folder"),
      join(root, "as-link"),
    ]);
  });
  it("a bundle given as a root twice (or once through a link) is found once", async () => {
    const b = join(tmp, "root/e/t1/a1");
    symlinkSync(b, join(tmp, "to-a1"));
    expect(paths([b, b, `${b}/`, join(tmp, "to-a1")])).toEqual([b]);
  });
  it("a folder holding journal.jsonl that may be searched but not read is skipped and said, as its listing failing says", () => {
    const root = join(tmp, "noread");
    put(join(root, "ok"), bundle(game({ trial: "t5", seed: "55".repeat(8) })));
    put(join(root, "shut"), bundle(game({ trial: "t6", seed: "66".repeat(8) })));
    chmodSync(join(root, "shut"), 0o311); // search, no read
    chmodSync(tmp, 0o755);
    // Root reads every folder: the check runs as nobody then (uid 65534), in a child.
    const script = `const m = await import(${JSON.stringify(new URL("../dist/io/discover.js", import.meta.url).href)});
      const skipped = []; const found = [...m.discover([${JSON.stringify(root)}], (p, why) => skipped.push([p, why]))].map((f) => f.path);
      console.log(JSON.stringify({ found, skipped }));`;
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
      ...(process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}),
    });
    chmodSync(join(root, "shut"), 0o755);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      found: [join(root, "ok")],
      skipped: [[join(root, "shut"), expect.stringMatching(/EACCES|permission denied/)]],
    });
  });
  it("a missing root stops the run with a clear message", async () => {
    expect(() => paths([join(tmp, "nope")])).toThrow(/root .*nope does not exist/);
  });
  it("a root gone after discovery began (another process moved it) stops the run naming it, never as an internal error; one still there goes on", () => {
    const [a, b] = [join(tmp, "moved-a"), join(tmp, "moved-b")];
    put(join(a, "e/t1/a1"), bundle(game({ trial: "t1" })));
    put(join(b, "e/t2/a1"), bundle(game({ trial: "t2", seed: "22".repeat(8) })));
    const walk = discover([a, b]);
    expect(walk.next().value).toMatchObject({ path: join(a, "e/t1/a1") });
    rmSync(b, { recursive: true });
    let thrown: unknown;
    try {
      for (const found of walk) void found;
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(DiscoveryError);
    expect((thrown as Error).message).toMatch(/^root .*moved-b cannot be read now: ENOENT/);
    // Both still there: both walked.
    put(join(b, "e/t2/a1"), bundle(game({ trial: "t2", seed: "22".repeat(8) })));
    expect(paths([a, b])).toEqual([join(a, "e/t1/a1"), join(b, "e/t2/a1")]);
  });
  it("scoreRoots over overlapping roots scores each bundle once", async () => {
    const r = await scoreRoots([join(tmp, "root"), join(tmp, "root/e")], {
      schedules: [],
      invalid: "count",
      resourceBound: "exclude",
      errors: "exclude",
    });
    expect(r.bundles).toHaveLength(2);
    expect(r.experiments[0]!.scheduled).toBe(2);
  });
});

describe("limits", () => {
  const source = (entries: BundleSource["entries"], data: Record<string, Buffer>): BundleSource => ({
    entries,
    read: (p) => [data[p]!],
  });

  it("findings are listed up to MAX_FINDINGS, then counted per code", async () => {
    const j = Buffer.from(Array.from({ length: MAX_FINDINGS + 500 }, () => "{bad").join("\n") + "\n");
    const e = scoreBundle(source([{ path: "journal.jsonl", kind: "file", size: j.length }], { "journal.jsonl": j }));
    expect(e.errors).toHaveLength(MAX_FINDINGS + 1);
    expect(e.errors.slice(0, 3).map((f) => f.line)).toEqual([1, 2, 3]);
    expect(e.errors.at(-1)).toMatchObject({
      code: "JSON_SYNTAX",
      line: null,
      message: expect.stringMatching(/^500 more JSON_SYNTAX/),
    });
  });
  it("a file over 4 GiB is UNSAFE_PATH and is not read", async () => {
    const files = bundle(game());
    const data = Object.fromEntries(Object.entries(files).map(([k, v]) => [k, Buffer.from(v)]));
    const entries = Object.entries(data).map(([path, b]) => ({ path, kind: "file" as const, size: b.length }));
    let readBig = false;
    const src: BundleSource = {
      entries: [...entries, { path: "huge.bin", kind: "file", size: 4 * 1024 ** 3 + 1 }],
      read: (p) => {
        if (p === "huge.bin") readBig = true;
        return [data[p] ?? Buffer.alloc(0)];
      },
    };
    const e = scoreBundle(src);
    expect(e.errors.map((f) => [f.code, f.file])).toEqual([["UNSAFE_PATH", "huge.bin"]]);
    expect(readBig).toBe(false);
  });
  it("a summary.json over 64 MiB is FILE_TOO_LARGE and is not parsed", async () => {
    const files = bundle(game());
    const data = Object.fromEntries(Object.entries(files).map(([k, v]) => [k, Buffer.from(v)]));
    const entries = Object.entries(data).map(([path, b]) => ({
      path,
      kind: "file" as const,
      size: path === "summary.json" ? 65 * 1024 * 1024 : b.length,
    }));
    const e = scoreBundle(source(entries, data));
    expect(e.errors.map((f) => [f.code, f.file])).toEqual([["FILE_TOO_LARGE", "summary.json"]]);
  });
  it("a journal.jsonl that is a directory is HEADER_MISSING, never a silent pass", async () => {
    const e = scoreBundle(source([{ path: "journal.jsonl", kind: "dir", size: 0 }], {}));
    expect(e.validity).toBe("invalid");
    expect(e.errors.map((f) => f.code)).toEqual(["HEADER_MISSING"]);
  });
});
