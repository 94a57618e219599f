// The one reader of the run's record files (predictions, the dataset): records handed over one at a
// time, as utils.py get_predictions_from_file reads them — a `.json` file holds a list of records or
// an object whose values are records, a `.jsonl` file one record a line — so no file is held whole.
// Read as §2 says: a `.json` document over `maxJsonBytes` is refused (FILE_TOO_LARGE), a JSONL line
// over 1 MiB is LINE_TOO_LONG, and each record is parsed strictly (duplicate keys, lone surrogates).

import { statSync } from "node:fs";
import { TextDecoder } from "node:util";
import type { Finding as JsonFinding } from "../../core/codes.js";
import { decodeLine, MAX_DOCUMENT_BYTES } from "../../core/json/decode.js";
import { splitLines } from "../../core/json/lines.js";
import { MembersError, MembersReader } from "../../core/json/members.js";
import { parseStrictJson } from "../../core/json/strict.js";
import { readChunks } from "../../io/bundle-source.js";
import type { Finding } from "./checks.js";

/** A record, and where it is (its 1-based line, or its place in the document's list or object). */
export type RecordSink = (value: unknown, at: string) => "more" | "stop";

export type RecordsRead =
  | { read: "ok" }
  /** The sink asked to stop. */
  | { read: "stopped" }
  | { read: "absent" }
  /** §2's finding (the first), or an I/O error as `UNREADABLE`. */
  | { read: "unreadable"; finding: Finding };

class Stop extends Error {}
class Refused extends Error {
  constructor(readonly finding: Finding) {
    super(finding.message);
  }
}

/** Every record of `file` to `sink`, in order; `.jsonl` by line, anything else as a `.json` document. */
/** Synchronous: a kind's book reads predictions while discovery walks. */
export function readRecords(file: string, sink: RecordSink, maxJsonBytes = MAX_DOCUMENT_BYTES): RecordsRead {
  let size: number;
  try {
    const st = statSync(file);
    if (!st.isFile())
      return { read: "unreadable", finding: { code: "UNREADABLE", message: `${file} is not a regular file` } };
    size = st.size;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { read: "absent" };
    return { read: "unreadable", finding: { code: "UNREADABLE", message: (e as Error).message } };
  }
  const jsonl = file.endsWith(".jsonl");
  if (!jsonl && size > maxJsonBytes)
    return {
      read: "unreadable",
      finding: { code: "FILE_TOO_LARGE", message: `${size} bytes exceeds ${maxJsonBytes}` },
    };
  try {
    if (jsonl) jsonlRecords(file, sink);
    else documentRecords(file, sink);
    return { read: "ok" };
  } catch (e) {
    if (e instanceof Stop) return { read: "stopped" };
    if (e instanceof Refused) return { read: "unreadable", finding: e.finding };
    return { read: "unreadable", finding: { code: "UNREADABLE", message: (e as Error).message } };
  }
}

function jsonlRecords(file: string, sink: RecordSink): void {
  for (const line of splitLines(readChunks(file))) {
    const problems: JsonFinding[] = [];
    const value = decodeLine(line, file, problems);
    const first = problems[0];
    if (first) throw new Refused({ code: first.code, message: `line ${line.number}: ${first.message}` });
    if (sink(value, `line ${line.number}`) === "stop") throw new Stop();
  }
}

const LIST_PREFIX = Buffer.from('{"":');

/**
 * A document's records through MembersReader: an object's member values, or a list's elements
 * (the list read as the one streamed member of `{"": …}`, offsets told without that prefix).
 */
function documentRecords(file: string, sink: RecordSink): void {
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const keys = new Set<string>();
  let reader: MembersReader | null = null;
  let shift = 0;
  let index = 0;
  // The `}` closing `{"": …}` ends no element: one that would, was cut short in the file.
  let closing = false;
  const hand = (value: Buffer, at: string) => {
    if (closing)
      throw new Refused({
        code: "JSON_SYNTAX",
        message: `${at}: the document ends before it is complete (cut short?)`,
      });
    const r = parseStrictJson(value.toString("utf8"), " \n");
    if (!r.ok) throw new Refused({ code: r.issue.code, message: `${at}: ${r.issue.message}` });
    if (sink(r.value, at) === "stop") throw new Stop();
  };
  const member = (k: string, v: Buffer) => {
    if (keys.has(k))
      throw new Refused({ code: "JSON_DUPLICATE_KEY", message: `the document repeats the key ${JSON.stringify(k)}` });
    keys.add(k);
    hand(v, `record ${JSON.stringify(k)}`);
  };
  let start = true;
  try {
    for (const chunk of readChunks(file)) {
      const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      checkEncoding(buf, decoder, start);
      start = false;
      if (reader === null) {
        const first = buf.find((c) => c !== 0x20 && c !== 0x0a && c !== 0x09);
        if (first === undefined) continue;
        if (first === 0x5b) {
          shift = LIST_PREFIX.length;
          reader = new MembersReader(new Set([""]), {
            member: () => {},
            element: (_k, v) => hand(v, `record ${index++}`),
          });
          reader.feed(LIST_PREFIX);
        } else if (first === 0x7b) {
          reader = new MembersReader(new Set(), { member, element: () => {} });
        } else
          throw new Refused({
            code: "SCHEMA",
            message: "the document is neither a list of records nor an object of records",
          });
      }
      reader.feed(buf);
    }
    checkEncoding(Buffer.alloc(0), decoder, false, true);
    if (reader === null) throw new Refused({ code: "JSON_SYNTAX", message: "the file is empty" });
    closing = true;
    if (shift > 0) reader.feed(Buffer.from("}"));
    reader.end();
  } catch (e) {
    if (e instanceof MembersError)
      throw new Refused({
        code: "JSON_SYNTAX",
        message: `${e.message.replace(/ at byte \d+$/, "")} at byte ${Math.max(0, e.offset - shift)}`,
      });
    throw e;
  }
}

/** §2 encoding, chunk by chunk: no BOM, no raw \r; UTF-8 checked by the fatal decoder across chunk edges. */
function checkEncoding(buf: Buffer, decoder: TextDecoder, atStart: boolean, atEnd = false): void {
  if (atStart && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf)
    throw new Refused({ code: "ENCODING", message: "byte order mark" });
  if (buf.indexOf(0x0d) !== -1) throw new Refused({ code: "ENCODING", message: "raw \\r" });
  try {
    decoder.decode(buf, { stream: !atEnd });
  } catch {
    throw new Refused({ code: "ENCODING", message: "invalid UTF-8" });
  }
}
