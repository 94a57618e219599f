// From bytes to a JSON value under the §2 rules, for JSONL lines and whole .json documents.

import { isUtf8 } from "node:buffer";
import { finding, type Finding } from "../codes.js";
import { parseStrictJson } from "./strict.js";
import { MAX_LINE_BYTES, type RawLine } from "./lines.js";

export const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;

/** §2 encoding: no BOM (at the start of a document or of any JSONL line), no raw \r, valid UTF-8. */
export function encodingProblem(bytes: Uint8Array): string | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "byte order mark";
  if (bytes.indexOf(0x0d) !== -1) return "raw \\r";
  if (!isUtf8(bytes)) return "invalid UTF-8";
  return null;
}

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** `o[k]` where it is a plain object, else null (evidence read field by field, never trusted to have its shape). */
export const objectAt = (o: Record<string, unknown> | null | undefined, k: string): Record<string, unknown> | null => {
  const v = o?.[k];
  return isPlainObject(v) ? v : null;
};

/** Decode one complete JSONL line into an object, or push its finding and return null. */
export function decodeLine(line: RawLine, file: string, out: Finding[]): Record<string, unknown> | null {
  const n = line.number;
  if (line.bytes === null) {
    out.push(finding("LINE_TOO_LONG", file, n, `line of ${line.length + 1} bytes exceeds ${MAX_LINE_BYTES}`));
    return null;
  }
  const bad = line.ascii ? null : encodingProblem(line.bytes);
  if (bad !== null) {
    out.push(finding("ENCODING", file, n, bad));
    return null;
  }
  if (line.length === 0) {
    out.push(finding("JSON_SYNTAX", file, n, "blank line"));
    return null;
  }
  const r = parseStrictJson(line.bytes.toString(line.ascii ? "latin1" : "utf8"), " ");
  if (!r.ok) {
    out.push(finding(r.issue.code, file, n, r.issue.message));
    return null;
  }
  if (!isPlainObject(r.value)) {
    out.push(finding("SCHEMA", file, n, "a JSONL line must hold one JSON object"));
    return null;
  }
  return r.value;
}

/** Decode a whole .json document, or push its finding and return undefined. */
export function decodeDocument(bytes: Uint8Array, file: string, out: Finding[]): unknown {
  if (bytes.length > MAX_DOCUMENT_BYTES) {
    out.push(finding("FILE_TOO_LARGE", file, null, `${bytes.length} bytes exceeds ${MAX_DOCUMENT_BYTES}`));
    return undefined;
  }
  const bad = encodingProblem(bytes);
  if (bad !== null) {
    out.push(finding("ENCODING", file, null, bad));
    return undefined;
  }
  const r = parseStrictJson(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8"), " \n");
  if (!r.ok) {
    out.push(finding(r.issue.code, file, null, r.issue.message));
    return undefined;
  }
  return r.value;
}
