// The `excluded` reason of a byte-identical copy of a trial within its container (a Harbor job
// folder): written by the kind's batch rules, read by comparisons and reports, which count a
// copy's original once and tell its copies from it. Pure.

const COPY = "a byte-identical copy of ";
/** The `excluded` reason of a byte-identical copy within a job folder. */
export const copyReason = (originalPath: string) => `${COPY}${originalPath} (counted once, there)`;
/** Is an `excluded` reason a copy's (a report tells the copies of a trial name from its original so)? */
export const isCopyReason = (reason: string) => reason.startsWith(COPY);
