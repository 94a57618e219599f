// Which repository an instance comes from and which of the harness's log parsers grades it
// (contract §14 "Which parser"). The dataset names the parser but is not in the archive, so the
// repo is read from the instance id and mapped as log_parsers/python.py's MAP_REPO_TO_PARSER_PY.

/** An instance folder's name (§14 recognition): `owner__name-number`. */
export const INSTANCE_ID_RE = /^[A-Za-z0-9][A-Za-z0-9._-]*__[A-Za-z0-9._-]+-[0-9]+$/;

import { PARSERS } from "./entry.js";

export { PARSERS };
export type ParserName = (typeof PARSERS)[number];

const PARSER_OF_REPO: ReadonlyMap<string, ParserName> = new Map([
  ["astropy/astropy", "pytest_v2"],
  ["django/django", "django"],
  ["marshmallow-code/marshmallow", "pytest"],
  ["matplotlib/matplotlib", "matplotlib"],
  ["mwaskom/seaborn", "seaborn"],
  ["pallets/flask", "pytest"],
  ["psf/requests", "pytest_options"],
  ["pvlib/pvlib-python", "pytest"],
  ["pydata/xarray", "pytest"],
  ["pydicom/pydicom", "pytest_options"],
  ["pylint-dev/astroid", "pytest"],
  ["pylint-dev/pylint", "pytest_options"],
  ["pytest-dev/pytest", "pytest"],
  ["pyvista/pyvista", "pytest"],
  ["scikit-learn/scikit-learn", "pytest_v2"],
  ["sqlfluff/sqlfluff", "pytest"],
  ["sphinx-doc/sphinx", "pytest_v2"],
  ["sympy/sympy", "sympy"],
]);

export interface InstanceRepo {
  /** `owner/name`. */
  repo: string;
  /** The harness's parser for it; null: a repo version 1 does not grade (unsupported). */
  parser: ParserName | null;
}

/** The repo and parser of an instance id; null when the text is not an instance id. */
export function repoOf(instanceId: string): InstanceRepo | null {
  if (!INSTANCE_ID_RE.test(instanceId)) return null;
  const sep = instanceId.indexOf("__");
  const owner = instanceId.slice(0, sep);
  const name = instanceId.slice(sep + 2, instanceId.lastIndexOf("-"));
  const repo = `${owner}/${name}`;
  return { repo, parser: PARSER_OF_REPO.get(repo) ?? null };
}
