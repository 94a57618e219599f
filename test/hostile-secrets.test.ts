// The API key never leaves the process (issue 11 item 6), even from an endpoint that echoes it: in
// the answer's text, the model name, the stop reason and a `request-id` header (direct replies),
// in a batch's results, and with the key itself in ANTHROPIC_BASE_URL's path and a `?token=` in
// its query. The real SDK talks to the fake Messages API through a small proxy that undoes the base
// URL's path and query (the SDK appends its own path after the base URL, query included). Nothing
// of the key, the token or ANTHROPIC_AUTH_TOKEN reaches stdout, stderr, the results document, the
// SQLite cache files' raw bytes, nor `cache export` (run without the secrets in its environment,
// so its own scrubbing cannot hide a leak) — for analyze (direct and --batch), narrate, check-task.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { endpointOf, secretScrubber } from "../src/analysis/secrets.js";
import { run } from "./helpers/cli.js";
import { FakeMessagesApi, toolUseReply, type BatchResult, type RecordedRequest } from "./helpers/fake-anthropic.js";
import { writeJob } from "./helpers/harbor.js";
import { SCRATCH, scratch } from "./helpers/shared.js";

const TOOL = "record_assessment";
/** Shaped like no credential redact() knows: only the environment can say it is one. */
const KEY = "plainkey0Q7w9Zr4X2m8T5v1Bq";
const AUTH = "authtoken0Zr4X2m8T5v1BqQ7w9";
const TOKEN = "querytoken0m8T5v1BqQ7w9Zr";
const SECRETS = [KEY, AUTH, TOKEN];
const said = `the key is ${KEY}, the token ${AUTH}`;

const fake = FakeMessagesApi.forTests();
let proxy: Server;
let base: string;
const { dir: tmp } = scratch("assay-secrets-", SCRATCH);
let job: string;
let n = 0;
/** Paths and queries the proxy was asked for: the key really was in the path, the token in the query. */
const seen: string[] = [];

/** An answer to whatever the request's forced tool asks (a rubric's criteria, or narrative prose), quoting the secrets. */
function echoing(params: {
  tools: { input_schema: { properties: Record<string, { properties?: Record<string, unknown> }> } }[];
}): unknown {
  const props = params.tools[0]!.input_schema.properties;
  if (props["criteria"])
    return {
      summary: said,
      criteria: Object.fromEntries(
        Object.keys(props["criteria"].properties!).map((c) => [c, { outcome: "fail", explanation: said }]),
      ),
    };
  return { overview: said, themes: [{ title: said, text: said, trials: ["job/t1"] }] };
}
const direct = (req: RecordedRequest) => {
  const reply = toolUseReply(TOOL, echoing(req.body), { requestId: `req_${KEY}`, model: `claude-${KEY}` });
  (reply.body as { stop_reason: string }).stop_reason = `tool_use ${KEY}`;
  return reply;
};
const batched = (_id: string, params: unknown): BatchResult => ({
  type: "succeeded",
  message: {
    ...(toolUseReply(TOOL, echoing(params as never)).body as object),
    model: `claude-${KEY}`,
    stop_reason: `tool_use ${AUTH}`,
  },
});

/** Forwards /<KEY>?token=<TOKEN>/v1/…&more to the fake's /v1/…?more. */
function startProxy(target: string): Promise<Server> {
  const server = createServer((req, res) => {
    seen.push(req.url!);
    const u = new URL(req.url!, "http://x");
    const path = (u.searchParams.get("token") ?? "").slice(TOKEN.length);
    u.searchParams.delete("token");
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(
          ([k]) => !["host", "connection", "content-length", "transfer-encoding"].includes(k),
        ),
      ) as Record<string, string>;
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      const r = await fetch(`${target}${path}${u.search}`, { method: req.method!, headers, ...(body ? { body } : {}) });
      const out = Buffer.from(await r.arrayBuffer());
      const back: Record<string, string> = {};
      r.headers.forEach(
        (v, k) =>
          void (["content-length", "content-encoding", "transfer-encoding", "connection"].includes(k) || (back[k] = v)),
      );
      res.writeHead(r.status, { ...back, "content-length": String(out.length) });
      res.end(out);
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

const env = (cache: string) => ({
  ANTHROPIC_API_KEY: KEY,
  ANTHROPIC_AUTH_TOKEN: AUTH,
  ANTHROPIC_BASE_URL: base,
  ASSAY_CACHE: cache,
});
const freshCache = () => join(tmp, `cache-${++n}.sqlite`);

/** No secret in the texts, in any file of the SQLite cache, nor in what `cache export` writes without them. */
async function expectNoLeak(texts: string[], cache: string): Promise<void> {
  const bytes = texts.map((t) => Buffer.from(t));
  for (const suffix of ["", "-wal", "-shm"]) if (existsSync(cache + suffix)) bytes.push(readFileSync(cache + suffix));
  const out = join(tmp, `export-${++n}.jsonl`);
  const ex = await run(["cache", "export", out, "--cache", cache], {});
  expect(ex.code).toBe(0);
  const exported = readFileSync(out);
  expect(exported.toString("utf8")).toContain("[redacted]"); // the echoes were there, and were scrubbed
  bytes.push(exported, Buffer.from(ex.stdout + ex.stderr));
  for (const b of bytes)
    for (const s of SECRETS) expect(b.includes(s), `a secret in ${b.toString("utf8").slice(0, 200)}…`).toBe(false);
}

beforeAll(async () => {
  proxy = await startProxy(fake.url);
  base = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/${KEY}?token=${TOKEN}`;
  job = writeJob(join(tmp, "jobs"), "job", [{ name: "t1" }, { name: "t2" }]);
});
afterAll(async () => {
  await new Promise((r) => proxy.close(r));
});
beforeEach(() => {
  fake.requests.length = 0;
  seen.length = 0;
  fake.fallback = direct;
  fake.batchAnswer = batched;
});

describe("an endpoint that echoes the key", () => {
  it("analyze (direct): the answer, model, stop reason and request id are scrubbed; the endpoint keeps no key nor token", async () => {
    const cache = freshCache();
    const r = await run(["analyze", job, "--format", "json", "--max-retries", "0"], env(cache));
    expect(r.code).toBe(0);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((u) => u.startsWith(`/${KEY}?token=${TOKEN}`))).toBe(true);
    const doc = JSON.parse(r.stdout) as {
      bundles: {
        advisory: {
          status: string;
          summary: string;
          provenance: { endpoint: string; model: string; request_id: string };
        };
      }[];
    };
    const a = doc.bundles[0]!.advisory;
    expect(a).toMatchObject({ status: "analysed", summary: "the key is [redacted], the token [redacted]" });
    expect(a.provenance).toMatchObject({
      endpoint: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/[redacted]`,
      model: "claude-[redacted]",
      request_id: "req_[redacted]",
    });
    await expectNoLeak([r.stdout, r.stderr], cache);
    const table = await run(["analyze", job, "--max-retries", "0"], env(cache)); // from the cache now, as a table
    await expectNoLeak([table.stdout, table.stderr], cache);
  });

  it("analyze --batch: the batch results are scrubbed the same way", async () => {
    const cache = freshCache();
    const out = join(tmp, "batch-results.json");
    const r = await run(
      ["analyze", job, "--batch", "--poll-interval", "0.01", "--max-retries", "0", "--format", "json", "--out", out],
      env(cache),
    );
    expect(r.code).toBe(0);
    expect(fake.batches.size).toBe(1);
    const doc = readFileSync(out, "utf8");
    expect(doc).toContain('"model": "claude-[redacted]"');
    await expectNoLeak([r.stdout, r.stderr, doc], cache);
  });

  it("narrate: the prose and provenance are scrubbed", async () => {
    const cache = freshCache();
    const results = join(tmp, "results.json");
    const scored = await run(["score", job, "--format", "json"]);
    writeFileSync(results, scored.stdout);
    const md = await run(["narrate", results, "--max-retries", "0"], env(cache));
    expect(md.code).toBe(0);
    expect(md.stdout).toContain("the key is [redacted]");
    const json = await run(["narrate", results, "--format", "json"], env(cache)); // from the cache
    await expectNoLeak([md.stdout, md.stderr, json.stdout, json.stderr], cache);
  });

  it("check-task: the explanations and summary are scrubbed", async () => {
    const cache = freshCache();
    const task = join(tmp, "task");
    mkdirSync(task);
    writeFileSync(join(task, "instruction.md"), "Make the test pass.\n");
    const r = await run(["check-task", task, "--max-retries", "0"], env(cache));
    expect(r.code).toBe(1); // every criterion failed, as the echoing endpoint said
    expect(r.stdout).toContain("the key is [redacted]");
    const json = await run(["check-task", task, "--json"], env(cache));
    await expectNoLeak([r.stdout, r.stderr, json.stdout, json.stderr], cache);
  });

  it("an error reply echoing the key, the auth token and the URL's token is scrubbed too (stderr and the document)", async () => {
    const cache = freshCache();
    fake.fallback = {
      status: 400,
      headers: { "request-id": `req_${KEY}` },
      body: {
        type: "error",
        error: { type: "invalid_request_error", message: `bad key ${KEY} / ${AUTH} for client ${TOKEN}` },
      },
    };
    const r = await run(["analyze", job, "--format", "json", "--max-retries", "0"], env(cache));
    expect(r.stdout).toContain("[redacted]");
    for (const s of SECRETS) expect(r.stdout + r.stderr).not.toContain(s);
  });
});

describe("the endpoint recorded in provenance", () => {
  const scrub = secretScrubber({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_AUTH_TOKEN: AUTH });

  it.each([
    [
      "user-info, query and fragment removed",
      `https://user:pass@proxy.example.com:8443/anthropic?token=${TOKEN}#frag`,
      "https://proxy.example.com:8443/anthropic",
    ],
    ["the key itself as a segment", `https://proxy.example.com/${KEY}/v1`, "https://proxy.example.com/[redacted]/v1"],
    [
      "a segment redact() knows (an Anthropic key's shape)",
      "https://proxy.example.com/sk-ant-api03-abcdefgh/x",
      "https://proxy.example.com/[redacted]/x",
    ],
    [
      "a long mix of letters and digits (a token of another service)",
      "https://proxy.example.com/t/9f8e7d6c5b4a39281706abcd/x",
      "https://proxy.example.com/t/[redacted]/x",
    ],
    [
      "a percent-encoded key",
      `https://proxy.example.com/${encodeURIComponent(`${KEY}`).replace("0", "%30")}`,
      "https://proxy.example.com/[redacted]",
    ],
  ])("%s", (_what, url, shown) => expect(endpointOf(url, scrub).shown).toBe(shown));

  it("what the URL held is handed back to be scrubbed from every text (values of 8 characters or more)", () => {
    const { secrets } = endpointOf(
      `https://user:hunter2hunter2@proxy.example.com/${KEY}/v1?token=${TOKEN}&beta=true#fragment`,
      scrub,
    );
    expect(secrets.sort()).toEqual([KEY, TOKEN, "fragment", "hunter2hunter2"].sort());
  });

  it.each([
    ["the API itself", "https://api.anthropic.com", "https://api.anthropic.com"],
    [
      "ordinary segments, a port, short or single-kind words",
      "http://127.0.0.1:8080/anthropic/v1/proxy-gateway-for-team-x/2025",
      "http://127.0.0.1:8080/anthropic/v1/proxy-gateway-for-team-x/2025",
    ],
  ])("the other side of the line: %s kept", (_what, url, shown) =>
    expect(endpointOf(url, scrub)).toEqual({ shown, secrets: [] }),
  );
});
