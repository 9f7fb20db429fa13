import { existsSync, realpathSync } from "node:fs";
import { dirname } from "node:path";
import { MissingBinaryError } from "../errors/missing-binary-error.js";
import { isRoot } from "../process/os-user.js";
import { aptInstallCommand, installDebianPackages } from "./apt-install.js";
import { findBinary, knownBinaryDirs } from "./find-binary.js";
import { KIND_REQUIREMENTS, SERVER_KINDS, type ServerKind } from "./server-kind.js";

/** Absolute paths of server binaries, keyed by canonical name (`mariadbd` even when it is `mysqld`). */
export type ServerBinaries = ReadonlyMap<string, string>;

interface Resolution {
  readonly paths: Map<string, string>;
  readonly missing: string[];
  readonly packages: Set<string>;
}

function resolveBinaries(kinds: readonly ServerKind[]): Resolution {
  const paths = new Map<string, string>();
  const missing: string[] = [];
  const packages = new Set<string>();
  for (const kind of kinds) {
    const requirements = KIND_REQUIREMENTS[kind];
    // Keep initdb and psql from the same PostgreSQL version as the postgres binary.
    let preferredDir: string | undefined;
    for (const spec of requirements.binaries) {
      let path: string | undefined;
      for (const name of [spec.name, ...spec.alternatives]) {
        path = findBinary(name, preferredDir);
        if (path !== undefined) break;
      }
      if (path === undefined) {
        missing.push(spec.name);
        for (const pkg of requirements.debianPackages) packages.add(pkg);
        continue;
      }
      paths.set(spec.name, path);
      if (kind === "postgres" && spec.name === "postgres") preferredDir = dirname(realpathSync(path));
    }
    for (const file of requirements.files ?? []) {
      if (existsSync(file)) {
        paths.set(file, file);
        continue;
      }
      missing.push(file);
      for (const pkg of requirements.debianPackages) packages.add(pkg);
    }
  }
  return { paths, missing, packages };
}

/**
 * Finds the binaries of the given server kinds. Where some are missing and this process is root
 * with apt-get available, installs their Debian packages (once, under a machine-wide lock);
 * otherwise throws a {@link MissingBinaryError} whose message holds the install command.
 */
export async function ensureServerBinaries(kinds: readonly ServerKind[] = SERVER_KINDS): Promise<ServerBinaries> {
  const first = resolveBinaries(kinds);
  if (first.missing.length === 0) return first.paths;
  const packages = [...first.packages];
  const root = isRoot();
  if (root && findBinary("apt-get") !== undefined) {
    await installDebianPackages(packages, () => resolveBinaries(kinds).missing.length > 0);
    const second = resolveBinaries(kinds);
    if (second.missing.length === 0) return second.paths;
    throw new MissingBinaryError(second.missing, aptInstallCommand(packages, false), knownBinaryDirs());
  }
  throw new MissingBinaryError(first.missing, aptInstallCommand(packages, !root), knownBinaryDirs());
}

/** The path of `name` in `binaries`; throws when absent (a bug: ensureServerBinaries checked it). */
export function binaryPath(binaries: ServerBinaries, name: string): string {
  const path = binaries.get(name);
  if (path === undefined) throw new MissingBinaryError([name], "(see ensureServerBinaries)", knownBinaryDirs());
  return path;
}
