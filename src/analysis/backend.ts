// Model backends. The live one is the real Anthropic SDK (its own retries and backoff; endpoint
// from ANTHROPIC_BASE_URL); the answer is requested as a forced tool call whose input_schema is
// the rubric's JSON Schema. The API key is read from the environment and never leaves the client:
// error text that reaches a caller is scrubbed of it.

import Anthropic from "@anthropic-ai/sdk";
import type { Model } from "@anthropic-ai/sdk/resources/messages";
import { redact } from "../core/redact.js";

/** A current model from the SDK's list (not in its deprecation table; a test checks). */
export const DEFAULT_MODEL: Model = "claude-sonnet-5-5";
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
}

export class BackendError extends Error {}

export class AnthropicBackend implements Backend {
  private readonly client: Anthropic;
  readonly endpoint: string;

  constructor(
    private readonly apiKey: string,
    o: { baseURL?: string | undefined; maxRetries?: number; timeoutMs?: number } = {},
  ) {
    this.client = new Anthropic({ apiKey, baseURL: o.baseURL ?? null, maxRetries: o.maxRetries ?? 4, timeout: o.timeoutMs ?? 120_000 });
    this.endpoint = this.client.baseURL;
  }

  async ask(req: ModelRequest): Promise<ModelReply> {
    try {
      const { data, request_id } = await this.client.messages
        .create({
          model: req.model,
          max_tokens: req.maxTokens,
          system: req.system,
          messages: [{ role: "user", content: req.user }],
          tools: [{ name: ANSWER_TOOL, description: "Record one outcome per rubric criterion and a summary.", input_schema: req.schema as Anthropic.Tool.InputSchema }],
          tool_choice: { type: "tool", name: ANSWER_TOOL },
        })
        .withResponse();
      // A body that was not a JSON message reaches here as whatever the SDK made of it: judge it, don't trust it.
      const message = (typeof data === "object" && data !== null ? data : {}) as Partial<Anthropic.Message>;
      const content = Array.isArray(message.content) ? message.content : [];
      const call = content.find((b) => b.type === "tool_use" && b.name === ANSWER_TOOL);
      return {
        stopReason: typeof message.stop_reason === "string" ? message.stop_reason : null,
        input: call?.type === "tool_use" ? call.input : null,
        requestId: request_id ?? null,
        model: typeof message.model === "string" ? message.model : req.model,
        inputTokens: message.usage?.input_tokens ?? 0,
        outputTokens: message.usage?.output_tokens ?? 0,
      };
    } catch (e) {
      throw new BackendError(this.scrub(describe(e)));
    }
  }

  /** Nothing that leaves this class may carry the key (or anything shaped like one). */
  private scrub(text: string): string {
    return redact(this.apiKey.length > 0 ? text.split(this.apiKey).join("[redacted]") : text);
  }
}

function describe(e: unknown): string {
  if (e instanceof Anthropic.APIError) return `${e.constructor.name}${e.status ? ` (HTTP ${e.status})` : ""}: ${e.message}`.slice(0, 500);
  return `${(e as Error).name ?? "Error"}: ${(e as Error).message ?? String(e)}`.slice(0, 500);
}
