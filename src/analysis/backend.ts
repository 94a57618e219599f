// Model backends. The live one is the real Anthropic SDK (its own retries and backoff; endpoint
// from ANTHROPIC_BASE_URL); the answer is requested as a forced tool call whose input_schema is
// the rubric's JSON Schema. The credentials in the environment never leave the client: every
// string of a reply (the answer, the model, the stop reason, the request id), every batch id and
// result, every error text and the endpoint are scrubbed here, where they arrive, so that nothing
// the direct, batch and narrative paths print, return or cache can carry them (an endpoint may
// echo what it was sent).

import Anthropic from "@anthropic-ai/sdk";
import type { Model } from "@anthropic-ai/sdk/resources/messages";
import { createHash } from "node:crypto";
import { DEFAULT_MODEL as MODEL } from "./models.js";
import { endpointOf, scrubDeep, secretScrubber } from "./secrets.js";

/** The default model, typed against the SDK's list of models (so a name it drops fails the build). */
export const DEFAULT_MODEL: Model = MODEL;
export const ANSWER_TOOL = "record_assessment";

export interface ModelRequest {
  model: string;
  system: string;
  user: string;
  schema: Record<string, unknown>;
  maxTokens: number;
}
export interface ModelReply {
  /** Why the model stopped ("tool_use", "max_tokens", …), when it said. */
  stopReason: string | null;
  /** The forced tool call's input; null when the model answered without it. */
  input: unknown;
  requestId: string | null;
  model: string;
  inputTokens: number;
  outputTokens: number;
}
export interface Backend {
  ask(req: ModelRequest): Promise<ModelReply>;
  /** Where the requests go (recorded in provenance). */
  readonly endpoint: string;
  /** The Message Batches API, when the backend has one. */
  readonly batches?: BatchApi;
}

export interface BatchStatus {
  ended: boolean;
  counts: { processing: number; succeeded: number; errored: number; canceled: number; expired: number };
}
/** One request's outcome in a batch: a reply to validate like a direct one, or why there is none. */
export type BatchOutcome = { customId: string; reply: ModelReply } | { customId: string; failure: string };
export interface BatchApi {
  /** Never retried: a create that timed out may have made a batch, and a retry would pay twice. */
  create(requests: readonly { customId: string; req: ModelRequest }[]): Promise<string>;
  /** The most recent batches (to find one whose create answer was lost). */
  recent(): Promise<{ id: string; createdAt: string; requests: number }[]>;
  retrieve(id: string): Promise<BatchStatus>;
  results(id: string): AsyncIterable<BatchOutcome>;
}

export class BackendError extends Error {
  constructor(
    message: string,
    /** The HTTP status when the API answered one (404: no such batch). */
    readonly status?: number,
  ) {
    super(message);
  }
}
const failure = (e: unknown, scrub: (t: string) => string) =>
  new BackendError(
    scrub(describe(e)),
    e instanceof Anthropic.APIError && typeof e.status === "number" ? e.status : undefined,
  );

export class AnthropicBackend implements Backend {
  private readonly client: Anthropic;
  readonly endpoint: string;
  /** Nothing that leaves this class may carry a credential of `env` or the key (or anything shaped like one). */
  private readonly scrub: (text: string) => string;

  constructor(
    apiKey: string,
    o: {
      baseURL?: string | undefined;
      maxRetries?: number;
      timeoutMs?: number;
      env?: Record<string, string | undefined>;
    } = {},
  ) {
    const env = { ...o.env, ANTHROPIC_API_KEY: apiKey };
    this.client = new Anthropic({
      apiKey,
      baseURL: o.baseURL ?? null,
      maxRetries: o.maxRetries ?? 4,
      timeout: o.timeoutMs ?? 120_000,
    });
    const { shown, secrets } = endpointOf(this.client.baseURL, secretScrubber(env));
    this.endpoint = shown;
    this.scrub = secretScrubber(env, secrets);
  }

  async ask(req: ModelRequest): Promise<ModelReply> {
    try {
      const { data, request_id } = await this.client.messages.create(params(req)).withResponse();
      return replyOf(data, request_id ?? null, req.model, this.scrub);
    } catch (e) {
      throw failure(e, this.scrub);
    }
  }

  readonly batches: BatchApi = {
    create: async (requests) => {
      try {
        const body = { requests: requests.map((r) => ({ custom_id: r.customId, params: params(r.req) })) };
        // An id is kept in the cache and printed: scrubbed like any text from the endpoint.
        return this.scrub((await this.client.messages.batches.create(body, { maxRetries: 0 })).id);
      } catch (e) {
        throw failure(e, this.scrub);
      }
    },
    recent: async () => {
      try {
        const page = await this.client.messages.batches.list({ limit: 100 });
        return page.data.map((b) => {
          const c = b.request_counts;
          return {
            id: this.scrub(b.id),
            createdAt: b.created_at,
            requests: c.processing + c.succeeded + c.errored + c.canceled + c.expired,
          };
        });
      } catch (e) {
        throw failure(e, this.scrub);
      }
    },
    retrieve: async (id) => {
      try {
        const b = await this.client.messages.batches.retrieve(id);
        return { ended: b.processing_status === "ended", counts: b.request_counts };
      } catch (e) {
        throw failure(e, this.scrub);
      }
    },
    results: (id) => {
      const client = this.client;
      const scrub = this.scrub;
      return (async function* () {
        let stream;
        try {
          stream = await client.messages.batches.results(id);
        } catch (e) {
          throw failure(e, scrub);
        }
        for await (const r of stream) {
          const model = (r.result.type === "succeeded" ? r.result.message?.model : undefined) ?? "";
          if (r.result.type === "succeeded")
            yield { customId: r.custom_id, reply: replyOf(r.result.message, null, model, scrub) };
          else if (r.result.type === "errored")
            yield {
              customId: r.custom_id,
              failure: scrub(`the batch request errored: ${JSON.stringify(r.result.error).slice(0, 300)}`),
            };
          else yield { customId: r.custom_id, failure: scrub(`the batch request was ${r.result.type}`) };
        }
      })();
    },
  };
}

/** SHA-256 of exactly what reaches the model for a request (system, user turn, tool, its description and schema, tool_choice, model, max_tokens). */
export const requestDigest = (req: ModelRequest): string =>
  createHash("sha256")
    .update(JSON.stringify(params(req)))
    .digest("hex");

/** The Messages API request for a model request: the answer as a forced tool call. */
function params(req: ModelRequest): Anthropic.MessageCreateParamsNonStreaming {
  return {
    model: req.model,
    max_tokens: req.maxTokens,
    system: req.system,
    messages: [{ role: "user", content: req.user }],
    tools: [
      {
        name: ANSWER_TOOL,
        description: "Record one outcome per rubric criterion and a summary.",
        input_schema: req.schema as Anthropic.Tool.InputSchema,
      },
    ],
    tool_choice: { type: "tool", name: ANSWER_TOOL },
  };
}

/** A reply as the engine reads it, every string in it scrubbed. A body that was not a JSON message is judged, not trusted. */
function replyOf(data: unknown, requestId: string | null, model: string, scrub: (text: string) => string): ModelReply {
  const message = (typeof data === "object" && data !== null ? data : {}) as Partial<Anthropic.Message>;
  const content = Array.isArray(message.content) ? message.content : [];
  const call = content.find((b) => b.type === "tool_use" && b.name === ANSWER_TOOL);
  return {
    stopReason: typeof message.stop_reason === "string" ? scrub(message.stop_reason) : null,
    input: call?.type === "tool_use" ? scrubDeep(call.input, scrub) : null,
    requestId: requestId === null ? null : scrub(requestId),
    model: scrub(typeof message.model === "string" ? message.model : model),
    inputTokens: message.usage?.input_tokens ?? 0,
    outputTokens: message.usage?.output_tokens ?? 0,
  };
}

function describe(e: unknown): string {
  if (e instanceof Anthropic.APIError)
    return `${e.constructor.name}${e.status ? ` (HTTP ${e.status})` : ""}: ${e.message}`.slice(0, 500);
  return `${(e as Error).name ?? "Error"}: ${(e as Error).message ?? String(e)}`.slice(0, 500);
}
