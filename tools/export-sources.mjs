// Where each export of a workspace package comes from: `./dist/X.js` is built from `src/X.ts`. vitest.config.ts maps
// imports to these sources (tests run on src/), docs/api/typedoc.config.mjs documents them.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The exports of the package in `dir` that have a source file.
 * @param {string} dir absolute path of a package
 * @returns {{ name: string, private: boolean, entries: Array<{ subpath: string, specifier: string, source: string }> }}
 */
export function exportSources(dir) {
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const entries = [];
  for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
    const built = typeof target === "string" ? target : (target.import ?? target.default);
    const match = built === undefined ? null : /^\.\/dist\/(.+)\.js$/.exec(built);
    const source = match === null ? undefined : join(dir, "src", `${match[1]}.ts`);
    // no source next to it (or not from dist/): the import resolves to the built file, as in production
    if (source === undefined || !existsSync(source)) continue;
    entries.push({ subpath, specifier: subpath === "." ? manifest.name : `${manifest.name}/${subpath.slice(2)}`, source });
  }
  return { name: manifest.name, private: manifest.private === true, entries };
}
