import { z } from "zod";
import { resultsSchema } from "../../core/results.js";
import { writeOutput } from "../../io/output.js";
import { parseOptions } from "../args.js";
import type { CliIo } from "../io.js";

/** The JSON Schema of the results document, generated from the zod schemas. */
export const resultsJsonSchema = (): string =>
  JSON.stringify({ $id: "urn:assay:results:1", ...z.toJSONSchema(resultsSchema) }, null, 2) + "\n";

export function schemaCommand(argv: string[], io: CliIo): number {
  const { values } = parseOptions({ args: argv, options: { out: { type: "string" } } });
  if (values.out !== undefined) writeOutput(values.out, resultsJsonSchema());
  else io.stdout(resultsJsonSchema());
  return 0;
}
