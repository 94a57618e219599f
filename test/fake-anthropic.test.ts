// The fake Messages API (test/helpers/fake-anthropic.ts) driven by the REAL @anthropic-ai/sdk over
// HTTP. These tests pin the SDK behaviour that the advisory-analysis code will rely on (auth
// header, retries, error classes, timeouts, parse failures) and show how to use the fake.

import Anthropic from "@anthropic-ai/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { errorReply, FakeMessagesApi, textReply, toolUseReply, type FakeReply } from "./helpers/fake-anthropic.js";

const API_KEY = "sk-ant-test-key";
const MODEL = "claude-sonnet-5-5"; // not deprecated: deprecated models make create() console.warn
const TOOL = {
  name: "record_advice",
  description: "Record the advisory analysis.",
  input_schema: {
    type: "object" as const,
    properties: { verdict: { type: "string" }, confidence: { type: "number" } },
    required: ["verdict"],
  },
};
const PARAMS = {
  model: MODEL,
  max_tokens: 1024,
  messages: [{ role: "user" as const, content: "Analyse this run." }],
  tools: [TOOL],
  tool_choice: { type: "tool" as const, name: TOOL.name },
};

let fake: FakeMessagesApi;
beforeEach(async () => {
  fake = await FakeMessagesApi.start();
});
// close() is idempotent, so tests that close early (to time it) are fine here too.
afterEach(() => fake.close());

const client = (maxRetries: number, timeout = 10_000) =>
  new Anthropic({ apiKey: API_KEY, baseURL: fake.url, maxRetries, timeout });

/** Rejection of `p`, for assertions on the error's class and fields. */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected the promise to reject");
}

describe("a forced tool call through the real SDK", () => {
  it("returns the scripted tool_use input and the fake records what the SDK sent", async () => {
    fake.script(toolUseReply(TOOL.name, { verdict: "sound", confidence: 0.9 }, { model: MODEL }));
    const msg = await client(0).messages.create(PARAMS);

    expect(msg.type).toBe("message");
    expect(msg.model).toBe(MODEL);
    expect(msg.stop_reason).toBe("tool_use");
    expect(msg.content).toHaveLength(1);
    const block = msg.content[0]!;
    expect(block.type).toBe("tool_use");
    if (block.type !== "tool_use") throw new Error("unreachable");
    expect(block.name).toBe(TOOL.name);
    expect(block.input).toEqual({ verdict: "sound", confidence: 0.9 });
    expect(msg.id).toMatch(/^msg_/);

    expect(fake.requests).toHaveLength(1);
    const req = fake.requests[0]!;
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/v1/messages");
    // SDK 1.14 sends apiKey as a bearer token, NOT as x-api-key.
    expect(req.headers["authorization"]).toBe(`Bearer ${API_KEY}`);
    expect(req.headers["x-api-key"]).toBeUndefined();
    expect(req.headers["anthropic-version"]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.body).toMatchObject({
      model: MODEL,
      max_tokens: 1024,
      messages: PARAMS.messages,
      tools: [TOOL],
      tool_choice: { type: "tool", name: TOOL.name },
    });
  });

  it("exposes the scripted request id through .withResponse()", async () => {
    fake.script(toolUseReply(TOOL.name, { verdict: "sound" }, { requestId: "req_scripted_123" }));
    const { data, request_id, response } = await client(0).messages.create(PARAMS).withResponse();
    expect(request_id).toBe("req_scripted_123");
    expect(response.status).toBe(200);
    expect(data.stop_reason).toBe("tool_use");
  });

  it("gives every response a generated req_ id when none is scripted", async () => {
    fake.script(toolUseReply(TOOL.name, {}));
    const { request_id } = await client(0).messages.create(PARAMS).withResponse();
    expect(request_id).toMatch(/^req_[0-9a-f]+$/);
  });

  it("delivers a textReply as one text block with stop_reason end_turn", async () => {
    fake.script(textReply("I would rather not call the tool."));
    const msg = await client(0).messages.create(PARAMS);
    expect(msg.stop_reason).toBe("end_turn");
    expect(msg.content).toEqual([{ type: "text", text: "I would rather not call the tool." }]);
  });
});

describe("SDK retries against scripted errors", () => {
  it.each([
    [429, "rate_limit_error"],
    [529, "overloaded_error"],
    [500, "api_error"],
  ])("retries a %i (%s) by itself and succeeds on the second request", async (status, type) => {
    // retry-after-ms: 1 keeps the test fast; retry-after: 0 would cost ~0.5 s (see below).
    fake.script(
      { ...errorReply(status, type, "try again"), headers: { "retry-after-ms": "1" } },
      toolUseReply(TOOL.name, { verdict: "ok" }),
    );
    const msg = await client(2).messages.create(PARAMS);
    expect(msg.content[0]).toMatchObject({ type: "tool_use", input: { verdict: "ok" } });
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests.map((r) => r.headers["x-stainless-retry-count"])).toEqual(["0", "1"]);
  });

  it("treats retry-after: 0 as no hint and falls back to its own backoff of at least 375 ms", async () => {
    fake.script(errorReply(429, "rate_limit_error", "slow down", 0), toolUseReply(TOOL.name, {}));
    const t0 = Date.now();
    await client(2).messages.create(PARAMS);
    // Default first backoff is 0.5 s minus up to 25 % jitter.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(370);
    expect(fake.requests).toHaveLength(2);
  });

  it("honours a small positive retry-after in seconds", async () => {
    fake.script(errorReply(529, "overloaded_error", "busy", 0.01), toolUseReply(TOOL.name, {}));
    const t0 = Date.now();
    await client(2).messages.create(PARAMS);
    expect(Date.now() - t0).toBeLessThan(370);
    expect(fake.requests).toHaveLength(2);
  });

  it("makes maxRetries + 1 requests in all before giving up", async () => {
    const busy: FakeReply = { ...errorReply(529, "overloaded_error", "busy"), headers: { "retry-after-ms": "1" } };
    fake.fallback = busy;
    const err = await rejection(client(2).messages.create(PARAMS));
    expect(err).toBeInstanceOf(Anthropic.OverloadedError);
    expect(fake.requests).toHaveLength(3);
  });
});

describe("SDK error classes with maxRetries 0", () => {
  it("surfaces a 429 as RateLimitError carrying status, request id and the API's error type", async () => {
    fake.script({
      ...errorReply(429, "rate_limit_error", "slow down", 0),
      headers: { "retry-after": "0", "request-id": "req_429" },
    });
    const err = await rejection(client(0).messages.create(PARAMS));
    expect(err).toBeInstanceOf(Anthropic.RateLimitError);
    const e = err as InstanceType<typeof Anthropic.RateLimitError>;
    expect(e.status).toBe(429);
    expect(e.requestID).toBe("req_429");
    expect(e.type).toBe("rate_limit_error");
    expect(e.apiMessage).toBe("slow down");
    expect(fake.requests).toHaveLength(1);
  });

  it("surfaces a 500 as InternalServerError", async () => {
    fake.script(errorReply(500, "api_error", "boom"));
    const err = await rejection(client(0).messages.create(PARAMS));
    expect(err).toBeInstanceOf(Anthropic.InternalServerError);
    expect((err as InstanceType<typeof Anthropic.InternalServerError>).status).toBe(500);
  });

  it("surfaces a 529 as OverloadedError, a subclass of InternalServerError", async () => {
    fake.script(errorReply(529, "overloaded_error", "busy"));
    const err = await rejection(client(0).messages.create(PARAMS));
    expect(err).toBeInstanceOf(Anthropic.OverloadedError);
    expect(err).toBeInstanceOf(Anthropic.InternalServerError);
  });

  it("does not retry a 400 even with retries left", async () => {
    fake.script(errorReply(400, "invalid_request_error", "bad tool schema"));
    const err = await rejection(client(2).messages.create(PARAMS));
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect(fake.requests).toHaveLength(1);
  });
});

describe("timeouts and closing", () => {
  it("rejects a reply delayed past the client timeout with APIConnectionTimeoutError, and close() stays prompt", async () => {
    fake.script({ ...toolUseReply(TOOL.name, {}), delayMs: 5_000 });
    const err = await rejection(client(0, 150).messages.create(PARAMS));
    expect(err).toBeInstanceOf(Anthropic.APIConnectionTimeoutError);
    expect(fake.requests).toHaveLength(1);
    const t0 = Date.now();
    await fake.close();
    expect(Date.now() - t0).toBeLessThan(1_000);
  });

  it("retries a timeout like any connection failure, so each retry costs another full timeout", async () => {
    fake.fallback = { ...toolUseReply(TOOL.name, {}), delayMs: 5_000 };
    const err = await rejection(client(1, 150).messages.create(PARAMS));
    expect(err).toBeInstanceOf(Anthropic.APIConnectionTimeoutError);
    expect(fake.requests).toHaveLength(2);
  });

  it("close() returns promptly while a client still waits on a delayed reply, which then fails to connect", async () => {
    fake.script({ ...toolUseReply(TOOL.name, {}), delayMs: 10_000 });
    const pending = rejection(client(0).messages.create(PARAMS));
    while (fake.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    const t0 = Date.now();
    await fake.close();
    expect(Date.now() - t0).toBeLessThan(1_000);
    const err = await pending;
    expect(err).toBeInstanceOf(Anthropic.APIConnectionError);
    expect(err).not.toBeInstanceOf(Anthropic.APIConnectionTimeoutError);
  });
});

describe("malformed replies", () => {
  it("makes the SDK throw a bare SyntaxError (not an AnthropicError) for a 200 with invalid JSON, without retrying", async () => {
    fake.script({ status: 200, raw: "{not json" });
    const err = await rejection(client(2).messages.create(PARAMS));
    expect(err).toBeInstanceOf(SyntaxError);
    expect(err).not.toBeInstanceOf(Anthropic.AnthropicError);
    expect(fake.requests).toHaveLength(1);
  });

  it("hands back the raw string as the 'message' when the reply is not labelled JSON", async () => {
    // The SDK only parses application/json; anything else resolves as text, with no error at all.
    fake.script({ raw: "{not json", headers: { "content-type": "text/plain" } });
    const msg: unknown = await client(0).messages.create(PARAMS);
    expect(msg).toBe("{not json");
  });
});

describe("the fake itself", () => {
  it("answers an unscripted request with a non-retryable 500 saying 'no scripted reply'", async () => {
    const err = await rejection(client(2).messages.create(PARAMS));
    expect(err).toBeInstanceOf(Anthropic.InternalServerError);
    expect((err as Error).message).toContain("no scripted reply");
    // x-should-retry: false on the default fallback, so a missing script fails fast.
    expect(fake.requests).toHaveLength(1);
  });

  it("passes function scripts the recorded request and its index", async () => {
    const seen: number[] = [];
    fake.fallback = (req, index) => {
      seen.push(index);
      return toolUseReply(TOOL.name, { echo: req.body.messages[0].content });
    };
    const msg = await client(0).messages.create(PARAMS);
    await client(0).messages.create(PARAMS);
    expect(msg.content[0]).toMatchObject({ input: { echo: "Analyse this run." } });
    expect(seen).toEqual([0, 1]);
  });

  it("consumes queued replies in order before falling back", async () => {
    fake.script(toolUseReply("a", {}), toolUseReply("b", {}));
    fake.fallback = toolUseReply("fallback", {});
    const names = [];
    for (let i = 0; i < 3; i++) {
      const m = await client(0).messages.create(PARAMS);
      names.push(m.content[0]?.type === "tool_use" ? m.content[0].name : "?");
    }
    expect(names).toEqual(["a", "b", "fallback"]);
  });

  it("records a non-JSON request body as raw text and survives it", async () => {
    fake.script(toolUseReply(TOOL.name, {}));
    const res = await fetch(`${fake.url}/v1/messages`, { method: "POST", body: "not json at all" });
    expect(res.status).toBe(200);
    expect(fake.requests[0]!.body).toBe("not json at all");
  });

  it("answers other paths and methods with a 404 in the API's error shape, without consuming the queue", async () => {
    fake.script(toolUseReply(TOOL.name, { still: "queued" }));
    for (const [method, path] of [
      ["GET", "/v1/messages"],
      ["POST", "/v1/complete"],
      ["GET", "/"],
    ] as const) {
      const res = await fetch(`${fake.url}${path}`, { method });
      expect(res.status).toBe(404);
      expect(res.headers.get("request-id")).toMatch(/^req_/);
      expect(await res.json()).toMatchObject({ type: "error", error: { type: "not_found_error" } });
    }
    const msg = await client(0).messages.create(PARAMS);
    expect(msg.content[0]).toMatchObject({ input: { still: "queued" } });
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /v1/messages",
      "POST /v1/complete",
      "GET /",
      "POST /v1/messages",
    ]);
  });

  it("turns a throwing function script into a 500 instead of crashing", async () => {
    fake.script(() => {
      throw new Error("script bug");
    });
    fake.script(toolUseReply(TOOL.name, {}));
    const err = await rejection(client(0).messages.create(PARAMS));
    expect(err).toBeInstanceOf(Anthropic.InternalServerError);
    expect((err as Error).message).toContain("script bug");
    await expect(client(0).messages.create(PARAMS)).resolves.toMatchObject({ stop_reason: "tool_use" });
  });
});
