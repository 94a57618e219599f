// A local stand-in for the Anthropic Messages API. The real SDK talks to it over HTTP on 127.0.0.1
// (pass `fake.url` as the client's baseURL or as ANTHROPIC_BASE_URL), so retries, timeouts, error
// classes and response parsing are the SDK's own, not a mock's.
//
//   const fake = await FakeMessagesApi.start();   (or FakeMessagesApi.forTests() at a file's or block's top)
//   fake.script(errorReply(429, "rate_limit_error", "slow down", 0), toolUseReply("report", { ok: true }));
//   const client = new Anthropic({ apiKey: "sk-ant-test-key", baseURL: fake.url, maxRetries: 1 });
//   ... fake.requests[1].body.tool_choice ...
//   await fake.close();

import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll } from "vitest";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: any;
}

export interface FakeReply {
  /** Default 200. */
  status?: number;
  /** Extra response headers (e.g. "retry-after": "0"); they override the defaults. */
  headers?: Record<string, string>;
  /** JSON body, serialised with JSON.stringify. */
  body?: unknown;
  /** A raw body text (for malformed replies); wins over body. */
  raw?: string;
  /** Wait this long before answering (to provoke client timeouts). */
  delayMs?: number;
}

export type Script = FakeReply | ((req: RecordedRequest, index: number) => FakeReply);
/** One request's outcome in a Message Batch's results. */
export type BatchResult =
  | { type: "succeeded"; message: unknown }
  | { type: "errored"; error: unknown }
  | { type: "canceled" }
  | { type: "expired" };
/** The message a batch entry succeeded with: a tool_use reply's body. */
export const batchMessage = (name: string, input: unknown): BatchResult => ({
  type: "succeeded",
  message: toolUseReply(name, input).body,
});

// Not on the SDK's deprecated list (those make every create() call console.warn).
const DEFAULT_MODEL = "claude-sonnet-5-5";
const rand = (bytes = 12) => randomBytes(bytes).toString("hex");

/** The API's error shape: {type:"error", error:{type, message}}; optional retry-after seconds. */
export function errorReply(status: number, type: string, message: string, retryAfterSeconds?: number): FakeReply {
  return {
    status,
    ...(retryAfterSeconds === undefined ? {} : { headers: { "retry-after": String(retryAfterSeconds) } }),
    body: { type: "error", error: { type, message } },
  };
}

/** A 200 Messages API response whose content is one tool_use block calling `name` with `input`. */
export function toolUseReply(
  name: string,
  input: unknown,
  opts: {
    id?: string;
    model?: string;
    usage?: { input_tokens: number; output_tokens: number };
    requestId?: string;
  } = {},
): FakeReply {
  return {
    status: 200,
    ...(opts.requestId === undefined ? {} : { headers: { "request-id": opts.requestId } }),
    body: {
      id: opts.id ?? `msg_${rand()}`,
      type: "message",
      role: "assistant",
      model: opts.model ?? DEFAULT_MODEL,
      content: [{ type: "tool_use", id: `toolu_${rand()}`, name, input }],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: opts.usage ?? { input_tokens: 100, output_tokens: 20 },
    },
  };
}

/** A 200 response with one text block (a model that ignored the forced tool). */
export function textReply(text: string, opts: { model?: string } = {}): FakeReply {
  return {
    status: 200,
    body: {
      id: `msg_${rand()}`,
      type: "message",
      role: "assistant",
      model: opts.model ?? DEFAULT_MODEL,
      content: [{ type: "text", text }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 100, output_tokens: 20 },
    },
  };
}

/** Default fallback. x-should-retry: false makes the SDK fail at once instead of retrying a test's
 *  missing script (500 is otherwise retried with ~0.5 s+ of backoff per attempt). */
const NO_SCRIPT: FakeReply = {
  ...errorReply(500, "api_error", "no scripted reply"),
  headers: { "x-should-retry": "false" },
};

export class FakeMessagesApi {
  readonly requests: RecordedRequest[] = [];
  /** Used when the queue is empty. */
  fallback: Script = NO_SCRIPT;

  readonly #server: Server;
  readonly #queue: Script[] = [];
  readonly #sockets = new Set<Socket>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #closing: Promise<void> | undefined;
  #url: string | undefined;

  private constructor(server: Server) {
    this.#server = server;
    server.on("connection", (socket) => {
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
      // A client that aborts mid-request must not surface as an unhandled error.
      socket.on("error", () => {});
    });
    server.on("request", (req, res) => this.#onRequest(req, res));
    // Malformed HTTP: answer 400 and drop the connection rather than emit an error.
    server.on("clientError", (_err, socket) => {
      if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n");
      else socket.destroy();
    });
  }

  /** Where it listens: http://127.0.0.1:<port>. */
  get url(): string {
    if (this.#url === undefined) throw new Error("fake-anthropic: not listening yet (forTests listens in beforeAll)");
    return this.#url;
  }

  /** Listens on 127.0.0.1, port 0 (random). */
  static async start(): Promise<FakeMessagesApi> {
    const fake = new FakeMessagesApi(createServer());
    await fake.#listen();
    return fake;
  }

  /**
   * One fake for the tests of the file or describe block that calls this: set up now (its fallback
   * and scripts may be set at once), listening before those tests and closed after them.
   */
  static forTests(): FakeMessagesApi {
    const fake = new FakeMessagesApi(createServer());
    beforeAll(() => fake.#listen());
    afterAll(() => fake.close());
    return fake;
  }

  #listen(): Promise<void> {
    const server = this.#server;
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => {
        server.off("error", reject);
        this.#url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        resolve();
      });
    });
  }

  /**
   * Message Batches: how each request of a created batch is answered (by custom_id and params),
   * and how many retrieves a batch stays in progress before it ends.
   */
  batchAnswer: (customId: string, params: any) => BatchResult = () => ({
    type: "errored",
    error: { type: "error", error: { type: "api_error", message: "no batch answer scripted" } },
  });
  pollsBeforeEnd = 1;
  /** Every batch created, by id, with its requests. */
  readonly batches = new Map<
    string,
    { requests: { custom_id: string; params: any }[]; polls: number; ended: boolean; createdAt: string }
  >();
  /** Answer batch creates this late (ms): a client with a shorter timeout loses the answer, the batch exists. */
  createDelayMs = 0;
  /** Answer the next batch create with this (an HTTP error: no batch is made), once. */
  createError: FakeReply | null = null;

  #batchJson(id: string) {
    const b = this.batches.get(id)!;
    const n = b.requests.length;
    return {
      id,
      type: "message_batch",
      processing_status: b.ended ? "ended" : "in_progress",
      request_counts: { processing: b.ended ? 0 : n, succeeded: b.ended ? n : 0, errored: 0, canceled: 0, expired: 0 },
      created_at: b.createdAt,
      expires_at: "2099-01-01T00:00:00Z",
      ended_at: b.ended ? new Date().toISOString() : null,
      archived_at: null,
      cancel_initiated_at: null,
      results_url: b.ended ? `${this.url}/v1/messages/batches/${id}/results` : null,
    };
  }

  #batchRequest(res: ServerResponse, method: string, pathname: string, body: any): void {
    const parts = pathname.split("/").slice(4); // after /v1/messages/batches
    if (method === "POST" && parts.length === 0) {
      if (this.createError !== null) {
        const reply = this.createError;
        this.createError = null;
        return this.#send(res, reply);
      }
      const id = `msgbatch_${rand()}`;
      this.batches.set(id, { requests: body.requests, polls: 0, ended: false, createdAt: new Date().toISOString() });
      const reply: FakeReply = { status: 200, body: this.#batchJson(id) };
      if (this.createDelayMs <= 0) return this.#send(res, reply);
      const t = setTimeout(() => (this.#timers.delete(t), this.#send(res, reply)), this.createDelayMs);
      this.#timers.add(t);
      return;
    }
    if (method === "GET" && parts.length === 0) {
      const data = [...this.batches.keys()].reverse().map((id) => this.#batchJson(id));
      return this.#send(res, {
        status: 200,
        body: { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null },
      });
    }
    const b = this.batches.get(parts[0] ?? "");
    if (b === undefined) return this.#send(res, errorReply(404, "not_found_error", `no batch ${parts[0]}`));
    if (method === "GET" && parts.length === 1) {
      if (++b.polls >= this.pollsBeforeEnd) b.ended = true;
      return this.#send(res, { status: 200, body: this.#batchJson(parts[0]!) });
    }
    if (method === "GET" && parts[1] === "results" && b.ended) {
      const lines = b.requests.map((r) =>
        JSON.stringify({ custom_id: r.custom_id, result: this.batchAnswer(r.custom_id, r.params) }),
      );
      return this.#send(res, {
        status: 200,
        headers: { "content-type": "application/binary" },
        raw: lines.join("\n") + "\n",
      });
    }
    this.#send(res, errorReply(404, "not_found_error", `Not found: ${method} ${pathname}`));
  }

  /** Queue replies, consumed one per POST /v1/messages request, in order. */
  script(...replies: Script[]): void {
    this.#queue.push(...replies);
  }

  /** Closes the server and any open sockets, cancelling delayed replies. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= new Promise<void>((resolve) => {
      for (const t of this.#timers) clearTimeout(t);
      this.#timers.clear();
      this.#server.close(() => resolve());
      // Keep-alive and pending-delay sockets would otherwise hold server.close() open.
      for (const s of this.#sockets) s.destroy();
      this.#sockets.clear();
    });
    return this.#closing;
  }

  #onRequest(req: IncomingMessage, res: ServerResponse): void {
    res.on("error", () => {});
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("error", () => {});
    req.on("end", () => {
      try {
        this.#handle(req, res, Buffer.concat(chunks).toString("utf8"));
      } catch (err) {
        // Never crash the server on odd input or a throwing script.
        this.#send(res, errorReply(500, "api_error", `fake-anthropic: ${String(err)}`));
      }
    });
  }

  #handle(req: IncomingMessage, res: ServerResponse, text: string): void {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
    }
    let body: any = text;
    try {
      body = text === "" ? text : JSON.parse(text);
    } catch {
      // Non-JSON bodies are recorded as the raw text.
    }
    const recorded: RecordedRequest = { method: req.method ?? "", path: req.url ?? "", headers, body };
    const index = this.requests.push(recorded) - 1;

    const pathname = new URL(recorded.path, "http://x").pathname;
    if (pathname.startsWith("/v1/messages/batches")) return this.#batchRequest(res, recorded.method, pathname, body);
    if (recorded.method !== "POST" || pathname !== "/v1/messages") {
      this.#send(res, errorReply(404, "not_found_error", `Not found: ${recorded.method} ${recorded.path}`));
      return;
    }
    const script = this.#queue.shift() ?? this.fallback;
    const reply = typeof script === "function" ? script(recorded, index) : script;
    if (reply.delayMs !== undefined && reply.delayMs > 0) {
      const t = setTimeout(() => {
        this.#timers.delete(t);
        this.#send(res, reply);
      }, reply.delayMs);
      this.#timers.add(t);
    } else {
      this.#send(res, reply);
    }
  }

  #send(res: ServerResponse, reply: FakeReply): void {
    // The client may have timed out and gone while a delayed reply waited.
    if (res.destroyed || res.writableEnded) return;
    const payload = reply.raw ?? (reply.body === undefined ? "" : JSON.stringify(reply.body));
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "request-id": `req_${rand()}`,
    };
    for (const [k, v] of Object.entries(reply.headers ?? {})) headers[k.toLowerCase()] = v;
    headers["content-length"] = String(Buffer.byteLength(payload));
    try {
      res.writeHead(reply.status ?? 200, headers);
      res.end(payload);
    } catch (err) {
      // An invalid status or header value from a script: report it instead of crashing.
      if (!res.headersSent) {
        const fallbackBody = JSON.stringify({
          type: "error",
          error: { type: "api_error", message: `fake-anthropic: bad reply: ${String(err)}` },
        });
        res.writeHead(500, {
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(fallbackBody)),
        });
        res.end(fallbackBody);
      } else {
        res.destroy();
      }
    }
  }
}
