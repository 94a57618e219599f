// A sample's transcript shaped as Inspect ≥ 0.3.206 writes it (condensed: model inputs pooled in
// `events_data`, long contents moved to `attachments` as `attachment://<hash>`), for the
// benchmark's realistic log: a system prompt, a question, an assistant turn calling a tool, the
// tool's output (ANSI colours and quoted JSON in some, as real terminals print), and the answer;
// about a dozen events (spans, sample_init, two model calls with their requests, tool, sandbox,
// state and store changes). Sizes are drawn around real logs' (inspect-more/): ~9 KB a sample.
// What assay scores — scores, errors, limits — is the caller's: this adds only what it reads past.

import { createHash } from "node:crypto";
import type { Random } from "./random.js";

const WORDS = (
  "the agent reads task plans a search calls tool inspects output compares it with target and answers file " +
  "directory listing process returns error code value config build test passes fails retries again"
).split(" ");

/** `n` characters of prose. */
function prose(r: Random, n: number): string {
  let s = "";
  while (s.length < n) s += `${WORDS[r.int(WORDS.length)]}${r.int(12) === 0 ? ". " : " "}`;
  return s.slice(0, n);
}
const md5 = (s: string) => createHash("md5").update(s).digest("hex");
/** A uuid-like id (Inspect's shortuuid: 22 characters). */
const uid = (r: Random) => r.hex(16).slice(0, 22);
const iso6 = (ms: number) => new Date(ms).toISOString().replace(/Z$/, "000+00:00");

const SYSTEM = `You are an expert software engineer working in a Linux sandbox. ${"Use the bash tool to inspect files and run commands; think step by step, verify your answer before you submit it, and keep your reasoning brief. ".repeat(2)}`;
const TOOLS = [
  {
    name: "bash",
    description: "Use this function to execute bash commands.",
    parameters: { type: "object", properties: { cmd: { type: "string" } }, required: ["cmd"] },
  },
];

/** A tool's output: a listing, with ANSI colours in some (escaped as \u001b) and quoted JSON in others. */
function toolOutput(r: Random, id: number): string {
  const lines: string[] = [];
  const colour = r.int(4) === 0;
  for (let i = 0; i < 6 + r.int(8); i++) {
    const name = `${WORDS[r.int(WORDS.length)]}_${r.hex(2)}.py`;
    lines.push(
      colour
        ? `\u001b[01;34m${name}\u001b[0m  ${r.int(90_000)}`
        : `-rw-r--r-- 1 root root ${r.int(90_000)} Nov  3 10:0${r.int(10)} ${name}`,
    );
  }
  if (r.int(3) === 0)
    lines.push(JSON.stringify({ case: id, status: "ok", checks: [r.int(9), r.int(9)], note: prose(r, 60) }));
  return lines.join("\n");
}

export interface Transcript {
  messages: unknown[];
  events: unknown[];
  events_data: { messages: unknown[]; calls: unknown[] };
  attachments: Record<string, string>;
  metadata: Record<string, unknown>;
  store: Record<string, unknown>;
}

/**
 * The transcript of sample `id` (epoch `epoch`), from `start` (ms): `question` asked, `answer`
 * given. `scoreEvents` go where Inspect puts them, in the scorers' span.
 */
export function transcript(
  r: Random,
  model: string,
  id: number,
  epoch: number,
  start: number,
  question: string,
  answer: string,
  scoreEvents: unknown[],
): Transcript {
  const attachments: Record<string, string> = {};
  const attach = (text: string) => {
    const h = md5(text);
    attachments[h] = text;
    return `attachment://${h}`;
  };
  const input = `${question}\n\n${prose(r, 150 + r.int(250))}`;
  const reasoning = prose(r, 100 + r.int(250));
  const output = toolOutput(r, id);
  const cmd = `ls -la /workspace/case_${id} && python3 check.py --case ${id}`;
  const callId = `call_${r.hex(12)}`;
  const msg = {
    system: { id: uid(r), content: attach(SYSTEM), source: "input", role: "system" },
    user: { id: uid(r), content: attach(input), source: "input", role: "user" },
    call: {
      id: uid(r),
      content: [{ type: "text", text: attach(reasoning) }],
      source: "generate",
      role: "assistant",
      tool_calls: [{ id: callId, function: "bash", arguments: { cmd }, type: "function" }],
      model,
    },
    tool: { id: uid(r), content: attach(output), role: "tool", tool_call_id: callId, function: "bash" },
    answer: { id: uid(r), content: answer, source: "generate", role: "assistant", model },
  };
  const messages = [msg.system, msg.user, msg.call, msg.tool, msg.answer];
  const request = (upto: number) => ({
    model: model.split("/").pop(),
    messages: messages
      .slice(0, upto)
      .map((m) => ({ role: m.role, content: typeof m.content === "string" ? m.content : "attachment" })),
    tools: TOOLS.map((t) => ({ type: "function", function: t })),
    tool_choice: "auto",
    max_tokens: 4096,
  });
  const calls = [request(2), request(4)];
  let t = start;
  let working = 0;
  const spanOf = new Map<string, string>();
  const ev = (event: string, span: string, rest: Record<string, unknown>) => {
    t += 20 + r.int(400);
    working += (20 + r.int(400)) / 1000;
    return {
      uuid: uid(r),
      span_id: spanOf.get(span) ?? (spanOf.set(span, r.hex(16)), spanOf.get(span)!),
      timestamp: iso6(t),
      working_start: working,
      event,
      ...rest,
    };
  };
  const usage = (i: number, o: number) => ({
    input_tokens: i,
    output_tokens: o,
    total_tokens: i + o,
    input_tokens_cache_read: r.int(i),
  });
  const modelEvent = (span: string, refs: [number, number], out: typeof msg.call | typeof msg.answer, call: number) =>
    ev("model", span, {
      model,
      input: [],
      input_refs: [refs],
      tools: TOOLS,
      tool_choice: "auto",
      config: { max_tokens: 4096 },
      output: {
        model,
        choices: [{ message: out, stop_reason: out === msg.call ? "tool_calls" : "stop" }],
        usage: usage(900 + r.int(3000), 40 + r.int(400)),
        time: 1 + r.next() * 9,
      },
      call: {
        request: {},
        request_refs: [[call, call + 1]],
        response: {
          id: `chatcmpl-${r.hex(12)}`,
          object: "chat.completion",
          created: Math.floor(t / 1000),
          model: model.split("/").pop(),
          usage: usage(900, 80),
        },
        time: 1 + r.next() * 9,
      },
      completed: iso6(t + 900),
      working_time: r.next() * 9,
    });
  const events = [
    ev("span_begin", "init", { id: "init", type: "init", name: "init" }),
    ev("sample_init", "init", {
      sample: { input: msg.user.content, target: `answer-${id}`, id, metadata: { difficulty: r.int(3) } },
      state: { messages: [msg.system, msg.user].map((m) => ({ ...m, content: m.content })) },
    }),
    ev("span_end", "init", { id: "init" }),
    ev("span_begin", "solvers", { id: "solvers", type: "solvers", name: "solvers" }),
    modelEvent("solvers", [0, 2], msg.call, 0),
    ev("tool", "solvers", {
      type: "function",
      id: callId,
      function: "bash",
      arguments: { cmd },
      result: msg.tool.content,
      events: [],
      completed: iso6(t + 300),
      working_time: r.next() * 3,
      message_id: msg.tool.id,
    }),
    ev("sandbox", "solvers", {
      action: "exec",
      cmd: `bash --login -c '${cmd}'`,
      options: { timeout: 180 },
      result: 0,
      output: msg.tool.content,
      completed: iso6(t + 250),
    }),
    modelEvent("solvers", [0, 4], msg.answer, 1),
    ev("state", "solvers", {
      changes: [
        { op: "add", path: "/messages/4", value: { ...msg.answer } },
        { op: "replace", path: "/output/completion", value: answer, replaced: "" },
      ],
    }),
    ev("store", "solvers", { changes: [{ op: "add", path: "/attempts", value: 1 + r.int(3) }] }),
    ev("span_end", "solvers", { id: "solvers" }),
    ev("span_begin", "scorers", { id: "scorers", type: "scorers", name: "scorers" }),
    ...scoreEvents,
    ev("span_end", "scorers", { id: "scorers" }),
  ];
  return {
    messages,
    events,
    events_data: { messages, calls },
    attachments,
    metadata: { difficulty: r.int(3), category: WORDS[r.int(WORDS.length)], source: `case_${id}`, epoch_seed: epoch },
    store: { attempts: 1 + r.int(3) },
  };
}
