// `assay slurm-script` (issue 24): the script it writes submits an array of shards and a merge
// that waits on it. Here its submissions are caught by a recording `sbatch` on the PATH and each
// job script is run as Slurm would run it (the array task id in SLURM_ARRAY_TASK_ID, in the
// submit folder): the merged document equals one run. .ci/slurm/test.sh runs the same script on a
// real one-node cluster.

import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { sh, slurmScript, type SlurmPlan } from "../src/cli/commands/slurm-script.js";
import { CLI, spawnCli } from "./helpers/cli.js";
import { SCRATCH, scratch } from "./helpers/shared.js";

const ROOT = new URL("..", import.meta.url).pathname;
const { dir: tmp } = scratch("assay-slurm-script-", SCRATCH);

const withoutRun = (file: string) => {
  const d = JSON.parse(readFileSync(file, "utf8"));
  delete d.run;
  return JSON.stringify(d);
};

/** A folder with `assay` and a recording `sbatch` on bin/: each call's arguments, stdin and folder in calls/, ids from 100. */
function sandbox(name: string): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = join(tmp, name);
  mkdirSync(join(dir, "bin"), { recursive: true });
  mkdirSync(join(dir, "calls"));
  writeFileSync(join(dir, "bin", "assay"), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  writeFileSync(
    join(dir, "bin", "sbatch"),
    `#!/bin/bash\nn=$(ls "${dir}/calls" | wc -l)\nc="${dir}/calls/$n"\nmkdir "$c"\nprintf '%s\\n' "$@" > "$c/args"\npwd > "$c/cwd"\ncat > "$c/job.sh"\necho "$((100 + n));cluster"\n`,
  );
  for (const f of ["assay", "sbatch"]) chmodSync(join(dir, "bin", f), 0o755);
  return { dir, env: { ...process.env, PATH: `${join(dir, "bin")}:${process.env["PATH"]}` } };
}

interface Call {
  args: string[];
  cwd: string;
  job: string;
}
const calls = (dir: string): Call[] =>
  readdirSync(join(dir, "calls"))
    .sort((a, b) => Number(a) - Number(b))
    .map((n) => {
      const c = join(dir, "calls", n);
      return {
        args: readFileSync(join(c, "args"), "utf8").trimEnd().split("\n"),
        cwd: readFileSync(join(c, "cwd"), "utf8").trim(),
        job: join(c, "job.sh"),
      };
    });

/** What sbatch --export=ALL,NAME=VALUE hands the job, as Slurm would. */
const exported = (c: Call): Record<string, string> => {
  const e = c.args.find((a) => a.startsWith("--export=ALL,"));
  return Object.fromEntries(
    (e?.slice("--export=ALL,".length).split(",") ?? []).map((kv) => [
      kv.slice(0, kv.indexOf("=")),
      kv.slice(kv.indexOf("=") + 1),
    ]),
  );
};

const PLAN: SlurmPlan = {
  roots: ["runs"],
  shards: 3,
  dir: "out",
  cwd: "/data/x",
  assay: "assay",
  score: [],
  merge: [],
  sbatch: [],
  cpus: 1,
};

describe("the script (pure)", () => {
  it("submits an array 0..n-1 with a store per shard, exit 3 counted as done, and a merge after every task (afterok)", () => {
    const s = slurmScript(PLAN);
    expect(s).toMatch(/^#!\/bin\/bash\n/);
    expect(s).toContain("--array=0-2 --requeue --open-mode=append --cpus-per-task=1");
    expect(s).toContain(
      `--store="$d/store-$i.sqlite" --jobs 1 --format json --out="$d/shard-$i.json" -- runs || [ $? -eq 3 ]`,
    );
    expect(s).toContain(
      `assay merge --format json --out="$d/results.json" -- "$d/shard-0.json" "$d/shard-1.json" "$d/shard-2.json" || [ $? -eq 3 ]`,
    );
    // One scan id per submission, handed to every task (merge refuses shards of another scan).
    expect(s).toContain(`--export=ALL,ASSAY_SCAN_ID="$scan"`);
    expect(s).toContain(`assay score --shard "$i/3" --scan-id="$ASSAY_SCAN_ID" `);
    expect(s).toContain("--dependency=afterok:$array");
    expect(s).toContain("scontrol requeue JOBID_i"); // the advice: requeue, never scancel and resubmit
    expect(s).toContain("DependencyNeverSatisfied");
    expect(s).toContain("cred_expire");
    expect(slurmScript(PLAN)).toBe(s);
    expect(slurmScript({ ...PLAN, shards: 1 })).toContain("--array=0-0 ");
  });
  it("quotes every name it was given, and passes score's and merge's options through", () => {
    const s = slurmScript({
      ...PLAN,
      roots: ["my runs", "it's"],
      dir: "out dir",
      cwd: "/a b",
      score: ["--invalid", "exclude"],
      merge: ["--schedule", "s 1.json"],
      sbatch: ["--partition=short"],
      cpus: 4,
    });
    expect(s).toContain(`--out="$d/shard-$i.json" -- 'my runs' 'it'\\''s' ||`);
    expect(s).toContain("--invalid exclude --jobs 4");
    expect(s).toContain("--cpus-per-task=4");
    expect(s).toContain("cd '/a b'");
    expect(s).toContain("d='out dir'");
    expect(s).toContain(`assay merge --schedule 's 1.json' --format json`);
    expect(s.match(/ --partition=short/g)).toHaveLength(2); // both jobs
    expect(sh("a'b")).toBe(`'a'\\''b'`);
    expect(sh("plain/path-1.json")).toBe("plain/path-1.json");
  });
});

describe("the script, run", () => {
  it("its jobs, run as Slurm runs them, write shards whose merge equals one run (apart from run); a rerun of a task resumes from its store", () => {
    const { dir, env } = sandbox("run");
    expect(spawnCli(["synth", "--out", join(dir, "my runs"), "--n", "30", "--seed", "slurm-script"]).code).toBe(0);
    expect(
      spawnCli(["score", "my runs", "--format", "json", "--out", "single.json", "--quiet"], { cwd: dir }).code,
    ).toBe(0);
    const w = spawnCli(["slurm-script", "my runs", "--shards", "3", "--dir", "out dir", "--out", "submit.sh"], {
      cwd: dir,
    });
    expect(w.code, w.stderr).toBe(0);
    expect(w.stderr).toBe("assay: wrote submit.sh: submit it with bash submit.sh\n");

    const submit = spawnSync("bash", [join(dir, "submit.sh")], { cwd: "/", env, encoding: "utf8" }); // the script cds to where it was written
    expect(submit.status, submit.stderr).toBe(0);
    expect(submit.stdout).toBe(
      "assay-slurm: shards job 100 (array 0-2), merge job 101; results in out dir/results.json\n",
    );
    const [array, merge] = calls(dir);
    expect(array!.args).toContain("--array=0-2");
    expect(array!.cwd).toBe(dir);
    expect(merge!.args).toContain("--dependency=afterok:100"); // the id, without the cluster
    expect(merge!.cwd).toBe(dir);

    const task = (i: number) =>
      spawnSync("bash", [array!.job], {
        cwd: dir,
        env: { ...env, ...exported(array!), SLURM_ARRAY_TASK_ID: String(i), ASSAY_STATUS_SECONDS: "3600" },
        encoding: "utf8",
      });
    for (const i of [0, 1, 2]) expect(task(i).status).toBe(0);
    for (const i of [0, 1, 2]) expect(existsSync(join(dir, "out dir", `store-${i}.sqlite`))).toBe(true);
    const m = spawnSync("bash", [merge!.job], { cwd: dir, env, encoding: "utf8" });
    expect(m.status, m.stderr).toBe(0);
    expect(withoutRun(join(dir, "out dir", "results.json"))).toBe(withoutRun(join(dir, "single.json")));

    // A requeued task runs the same script again: every bundle comes from its store.
    const again = task(1);
    expect(again.status).toBe(0);
    const last = /\((\d+) from store\)/.exec(
      again.stderr
        .split("\n")
        .filter((l) => l.includes("from store"))
        .pop() ?? "",
    );
    expect(Number(last?.[1])).toBeGreaterThan(0);
  }, 120_000);
});

describe("roots that begin with - (issue 35 §5)", () => {
  it("a folder named --invalid=exclude is a root of every shard, never an option: the merge equals one run (before: every shard scored with --invalid exclude)", () => {
    const { dir, env } = sandbox("dash");
    for (const [name, seed] of [
      ["runs", "dash"],
      ["--invalid=exclude", "dash-2"],
    ])
      expect(spawnCli(["synth", "--out", join(dir, name!), "--n", "10", "--seed", seed!, "--faults"]).code).toBe(0);
    const roots = ["runs", "--invalid=exclude"];
    // score honours --: what follows is roots.
    const single = spawnCli(["score", "--format", "json", "--out", "single.json", "--quiet", "--", ...roots], {
      cwd: dir,
    });
    expect(single.code, single.stderr).toBe(0);
    const doc = JSON.parse(readFileSync(join(dir, "single.json"), "utf8"));
    expect([doc.run.roots, doc.run.options.invalid]).toEqual([roots, "count"]);
    expect(doc.bundles.filter((e: { validity: string }) => e.validity === "invalid").length).toBeGreaterThan(0); // so --invalid would change figures
    expect(
      spawnCli(["slurm-script", "--shards", "2", "--dir", "out", "--out", "submit.sh", "--", ...roots], { cwd: dir })
        .code,
    ).toBe(0);
    expect(readFileSync(join(dir, "submit.sh"), "utf8")).toContain(`-- runs --invalid=exclude ||`);
    expect(spawnSync("bash", [join(dir, "submit.sh")], { cwd: dir, env, encoding: "utf8" }).status).toBe(0);
    const [array, merge] = calls(dir);
    for (const i of [0, 1]) {
      const t = spawnSync("bash", [array!.job], {
        cwd: dir,
        env: { ...env, ...exported(array!), SLURM_ARRAY_TASK_ID: String(i), ASSAY_STATUS_SECONDS: "3600" },
        encoding: "utf8",
      });
      expect(t.status, t.stderr).toBe(0);
    }
    const m = spawnSync("bash", [merge!.job], { cwd: dir, env, encoding: "utf8" });
    expect(m.status, m.stderr).toBe(0);
    const merged = JSON.parse(readFileSync(join(dir, "out", "results.json"), "utf8"));
    expect([merged.run.roots, merged.run.options.invalid, merged.run.scan.given]).toEqual([roots, "count", true]);
    expect(withoutRun(join(dir, "out", "results.json"))).toBe(withoutRun(join(dir, "single.json")));
  }, 120_000);
});

describe("every command reads what follows -- as arguments (issue 35 §5)", () => {
  it("score, merge, compare and verify, given files and folders named like options", () => {
    const dir = join(tmp, "dashes");
    mkdirSync(dir);
    expect(spawnCli(["synth", "--out", join(dir, "--quiet"), "--n", "4", "--seed", "dashes"]).code).toBe(0);
    const cli = (...argv: string[]) => spawnCli(argv, { cwd: dir });
    const whole = cli("score", "--format", "json", "--out", "w.json", "--", "--quiet");
    expect(whole.code, whole.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, "w.json"), "utf8")).run.roots).toEqual(["--quiet"]);
    for (const i of [0, 1])
      expect(cli("score", "--shard", `${i}/2`, "--format", "json", `--out=--s${i}.json`, "--", "--quiet").code).toBe(0);
    const merged = cli("merge", "--format", "json", "--", "--s0.json", "--s1.json");
    expect(merged.code, merged.stderr).toBe(0);
    expect(withoutRun(join(dir, "w.json"))).toBe(JSON.stringify({ ...JSON.parse(merged.stdout), run: undefined }));
    expect(cli("compare", "--format", "json", "--", "--s0.json", "w.json").stderr).toMatch(
      /--s0\.json is shard 0\/2 of a run/,
    ); // read as a document, not an option
    const bundle = JSON.parse(readFileSync(join(dir, "w.json"), "utf8")).bundles.find(
      (e: { validity: string }) => e.validity === "valid",
    ).path;
    expect(cli("verify", "--", bundle).code).toBe(0);
  });
});

describe("assay slurm-script refuses, exit 2 with one line", () => {
  const refused = (argv: string[], pattern: RegExp) => {
    const r = spawnCli(["slurm-script", ...argv], { cwd: tmp });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(pattern);
  };
  beforeAll(() => mkdirSync(join(tmp, "r"), { recursive: true }));
  it("no root, no --dir, no --shards, or --shards 0", () => {
    refused(["--shards", "2", "--dir", "o"], /at least one ROOT/);
    refused(["r", "--shards", "2"], /--dir is required/);
    refused(["r", "--dir", "o"], /--shards is required/);
    refused(["r", "--dir", "o", "--shards", "0"], /--shards must be a positive integer/);
  });
  it("a root that does not exist here (the jobs would find nothing)", () =>
    refused(["absent", "--dir", "o", "--shards", "2"], /root absent does not exist/));
  it("--dir inside a root, or the root itself (each shard would find the others' files); beside it is fine", () => {
    refused(["r", "--dir", "r/shards", "--shards", "2"], /--dir r\/shards is inside root r/);
    refused([".", "--dir", "o", "--shards", "2"], /--dir o is inside root \./);
    refused(["r", "--dir", "r", "--shards", "2"], /--dir r is inside root r/);
    refused(["./r", "--dir", "r", "--shards", "2"], /--dir r is inside root \.\/r/);
    expect(spawnCli(["slurm-script", "r", "--dir", "rr", "--shards", "2"], { cwd: tmp }).code).toBe(0);
  });
  it("a name with a control character, a % in --dir, an --sbatch value that is not an option", () => {
    refused(["r", "--dir", "o\nSCRIPT", "--shards", "2"], /control character/);
    refused(["r", "--dir", "o%j", "--shards", "2"], /holds %/);
    refused(["r", "--dir", "o", "--shards", "2", "--sbatch=partition=x"], /--sbatch takes one sbatch option/);
  });
  it("--out onto a root or the key file", () => {
    writeFileSync(join(tmp, "k.key"), "k".repeat(64));
    refused(["r", "--dir", "o", "--shards", "2", "--out", "r"], /cannot write r: it is a folder/);
    refused(
      ["r", "--dir", "o", "--shards", "2", "--hmac-key-file", "k.key", "--out", "k.key"],
      /will not write k\.key: it is k\.key, which this command reads or keeps/,
    );
    expect(readFileSync(join(tmp, "k.key"), "utf8")).toBe("k".repeat(64));
  });
  it("score's options are checked as score checks them", () => {
    refused(["r", "--dir", "o", "--shards", "2", "--invalid", "drop"], /--invalid must be one of count, exclude/);
    refused(["r", "--dir", "o", "--shards", "2", "--bundle-timeout", "0"], /--bundle-timeout takes/);
  });
  it("the same arguments, well formed, write the script (to stdout without --out)", () => {
    const r = spawnCli(
      ["slurm-script", "r", "--dir", "o", "--shards", "2", "--sbatch=--partition=x", "--invalid", "exclude"],
      { cwd: tmp },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      slurmScript({
        ...PLAN,
        roots: ["r"],
        dir: "o",
        cwd: tmp,
        shards: 2,
        sbatch: ["--partition=x"],
        score: ["--invalid=exclude"],
      }),
    );
  });
});

describe("the docs", () => {
  it("scale.md's Slurm recipe (the block .ci/slurm/test.sh runs) writes the script with slurm-script and submits it", () => {
    const page = readFileSync(join(ROOT, "docs", "scale.md"), "utf8");
    const block = /^```sh norun slurm\n([\s\S]*?)^```$/m.exec(page)?.[1];
    expect(block).toBe("assay slurm-script runs --shards 4 --dir shards --out assay-slurm.sh\nbash assay-slurm.sh\n");
    expect(readFileSync(join(ROOT, ".ci", "slurm", "test.sh"), "utf8")).toContain("/^```sh norun slurm$/");
  });
  it("assay slurm-script --help names scale.md; -h and assay help slurm-script say the same", () => {
    const r = spawnCli(["slurm-script", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^assay slurm-script ROOT\.\.\. --shards N --dir DIR/);
    expect(r.stdout).toMatch(/\nMore: \S+\/docs\/scale\.md\n$/);
    expect(spawnCli(["slurm-script", "-h"]).stdout).toBe(r.stdout);
    expect(spawnCli(["help", "slurm-script"]).stdout).toBe(r.stdout);
    expect(spawnCli(["--help"]).stdout).toMatch(
      /^  slurm-script  write the script that scores in shards on Slurm, then merges$/m,
    );
  });
});
