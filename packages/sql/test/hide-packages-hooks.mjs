// Module hooks that make the packages named in `initialize`'s data unresolvable, as if they were not installed:
// Node's own resolver looks for them from a directory that has no node_modules, and fails as in a real install.
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const NO_PACKAGES_HERE = pathToFileURL(join(tmpdir(), "distlock-no-packages", "importer.mjs")).href;
let hidden = new Set();

export function initialize(packageNames) {
  hidden = new Set(packageNames);
}

export function resolve(specifier, context, nextResolve) {
  return nextResolve(specifier, hidden.has(specifier) ? { ...context, parentURL: NO_PACKAGES_HERE } : context);
}
