// TypeDoc for the public entry points of every publishable package: `npm run docs:api` writes docs/api/html/.
// One TypeScript program over the packages' sources (tsconfig.json here), with each package specifier mapped to its
// source file, so types shared across packages link to each other. Left out: `./internal` entry points (shared between
// distlock's own packages, not a public API), the conformance `./worker` (a process script, no exports) and
// @distlock/cli (its interface is the command, documented in its README).
// This file is also the TypeDoc plugin (`load` below) that names each module by its import specifier.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Converter } from "typedoc";

const root = join(import.meta.dirname, "..", "..");
const UNDOCUMENTED_PACKAGES = new Set(["@distlock/cli"]);
const UNDOCUMENTED_SUBPATHS = new Set(["./internal", "./worker"]);

/** Every export of every publishable package whose dist .js has a source file: specifier → source. */
const sources = new Map();
const documented = [];
for (const dir of readdirSync(join(root, "packages"))) {
  const manifest = JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8"));
  if (manifest.private) continue;
  for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
    const match = /^\.\/dist\/(.+)\.js$/.exec(typeof target === "string" ? target : target.default);
    const source = match === null ? undefined : join(root, "packages", dir, "src", `${match[1]}.ts`);
    if (source === undefined || !existsSync(source)) continue;
    const specifier = subpath === "." ? manifest.name : `${manifest.name}/${subpath.slice(2)}`;
    sources.set(specifier, source);
    if (!UNDOCUMENTED_PACKAGES.has(manifest.name) && !UNDOCUMENTED_SUBPATHS.has(subpath)) documented.push(source);
  }
}

/** @type {Partial<import("typedoc").TypeDocOptions>} */
export default {
  name: "distlock",
  entryPoints: documented,
  entryPointStrategy: "resolve",
  tsconfig: join(import.meta.dirname, "tsconfig.json"),
  compilerOptions: { paths: Object.fromEntries([...sources].map(([specifier, source]) => [specifier, [source]])) },
  plugin: [import.meta.filename],
  out: join(import.meta.dirname, "html"),
  readme: "none",
  displayBasePath: root,
  disableGit: true,
  sourceLinkTemplate: "https://github.com/distlock/distlock/blob/main/{path}#L{line}",
  // @distlock/sql's LockTableMigrationProvider inherits kysely's doc comment, which links to kysely's Migration.
  externalSymbolLinkMappings: {
    kysely: {
      Migration: "https://kysely-org.github.io/kysely-apidoc/interfaces/Migration.html",
    },
  },
};

const specifierOf = new Map([...sources].map(([specifier, source]) => [source, specifier]));

/** Plugin: a module is named "@distlock/core/driver", not by its path ("core/src/driver"). */
export function load(app) {
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const module of context.project.children ?? []) {
      const specifier = specifierOf.get(module.sources?.[0]?.fullFileName);
      if (specifier !== undefined) module.name = specifier;
    }
  });
}
