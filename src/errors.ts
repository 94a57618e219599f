// Errors the user can fix, with stable codes; the CLI maps them to exit 2 in one place.

/** A mistake in how assay was called: one clear line, exit 2. */
export class UsageError extends Error {
  readonly code = "USAGE";
}
