// TypeDoc for the public entry points of every publishable package: `npm run docs:api` writes docs/api/html/.
// One TypeScript program over the packages' sources (tsconfig.json here), with each package specifier mapped to its
// source file, so types shared across packages link to each other. Left out: `./internal` entry points (shared between
// distlock's own packages, not a public API), the conformance `./worker` (a process script, no exports) and
// @distlock/cli (its interface is the command, documented in its README).
// This file is also the TypeDoc plugin (`load` below) that names each module by its import specifier.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { Converter } from "typedoc";
import { exportSources } from "../../tools/export-sources.mjs";

const root = join(import.meta.dirname, "..", "..");
const UNDOCUMENTED_PACKAGES = new Set(["@distlock/cli"]);
const UNDOCUMENTED_SUBPATHS = new Set(["./internal", "./worker"]);

const packages = readdirSync(join(root, "packages"))
  .map((dir) => exportSources(join(root, "packages", dir)))
  .filter((pkg) => !pkg.private);
/** Every export of every publishable package: specifier → source (imports between packages resolve to sources). */
const sources = new Map(packages.flatMap((pkg) => pkg.entries.map(({ specifier, source }) => [specifier, source])));
const documented = packages
  .filter((pkg) => !UNDOCUMENTED_PACKAGES.has(pkg.name))
  .flatMap((pkg) => pkg.entries.filter(({ subpath }) => !UNDOCUMENTED_SUBPATHS.has(subpath)).map(({ source }) => source));

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
