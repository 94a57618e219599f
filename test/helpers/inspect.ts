// Inspect log fixtures (contract §12): the real logs kept in test/fixtures/inspect, read and
// edited here — a .eval's members listed by a small reader of its own (not src/'s), changed, and
// written back through the synthesiser's ZIP writer — so each defect is one minimal edit.

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inflateRawSync } from "node:zlib";
import { scoreInspectLog } from "../../src/kinds/inspect/read.js";
import { zipBytes, type Method } from "../../src/synth/zip.js";
import { SCRATCH, scratch as scratchFolder } from "./shared.js";

export const FIXTURES = new URL("../fixtures/inspect/", import.meta.url).pathname;
export const fixture = (name: string) => join(FIXTURES, name);

export interface Member {
  name: string;
  data: Buffer;
  method: Method;
}

/** A .eval's members by its central directory, inflated (Deflate or stored: the real logs are Deflate). */
export function members(file: string): Member[] {
  const b = readFileSync(file);
  const eocd = b.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  let at = b.readUInt32LE(eocd + 16);
  const out: Member[] = [];
  for (let i = 0; i < b.readUInt16LE(eocd + 10); i++) {
    const method = b.readUInt16LE(at + 10) as Method;
    const csize = b.readUInt32LE(at + 20);
    const n = b.readUInt16LE(at + 28);
    const name = b.subarray(at + 46, at + 46 + n).toString("utf8");
    const local = b.readUInt32LE(at + 42);
    const start = local + 30 + b.readUInt16LE(local + 26) + b.readUInt16LE(local + 28);
    const raw = b.subarray(start, start + csize);
    out.push({ name, data: method === 8 ? inflateRawSync(raw) : Buffer.from(raw), method });
    at += 46 + n + b.readUInt16LE(at + 30) + b.readUInt16LE(at + 32);
  }
  return out;
}

export const json = (m: Member): any => JSON.parse(m.data.toString("utf8"));
export const member = (ms: Member[], name: string): Member => ms.find((m) => m.name === name)!;

/** Replace a member's JSON through `f` (which edits the parsed value in place, or returns a new one). */
export function editJson(ms: Member[], name: string, f: (v: any) => unknown): Member[] {
  return ms.map((m) => {
    if (m.name !== name) return m;
    const v = json(m);
    const r = f(v);
    return { ...m, data: Buffer.from(JSON.stringify(r === undefined ? v : r)) };
  });
}

// Vitest loads this module afresh for each test file: each has its own folder, removed after its tests.
const { dir } = scratchFolder("assay-inspect-", SCRATCH);
/** Write bytes as a log file in the file's scratch folder (named as given) and return its path. */
export function place(name: string, bytes: Uint8Array | string): string {
  const file = join(dir, name);
  writeFileSync(file, bytes);
  return file;
}
export const scratch = () => dir;

/** An edited .eval written and scored. */
export function scoreEval(ms: Member[], o: { zip64?: boolean; end?: boolean; name?: string } = {}) {
  const file = place(o.name ?? `edited-${Math.random().toString(36).slice(2)}.eval`, zipBytes(ms, o));
  return { file, entry: scoreInspectLog(file, "eval") };
}

/** A .json log (text, or an object) written and scored. */
export function scoreJson(v: unknown, name = `edited-${Math.random().toString(36).slice(2)}.json`) {
  const file = place(name, typeof v === "string" ? v : JSON.stringify(v, null, 2));
  return { file, entry: scoreInspectLog(file, "json") };
}

export const readFixture = (name: string): any => JSON.parse(readFileSync(fixture(name), "utf8"));
export type Entry = ReturnType<typeof scoreInspectLog>;
export const codes = (e: Entry) => [...new Set(e.errors.map((f) => f.code))].sort();
export const warningCodes = (e: Entry) => [...new Set(e.warnings.map((f) => f.code))].sort();
export const flagCodes = (e: Entry) => e.flags.map((f) => f.code).sort();
