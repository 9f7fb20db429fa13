import { absoluteModuleSpecifier } from "@distlock/core/internal";
import { CliError } from "./cli-error.js";

const FLAG = "--backend-module";

/**
 * Takes every `--backend-module M` (or `--backend-module=M`) before "--" out of `argv`, wherever it stands, and
 * returns the rest with the modules named; the program after "--" keeps its arguments.
 */
export function takeBackendModules(argv: readonly string[]): { rest: string[]; modules: string[] } {
  const rest: string[] = [];
  const modules: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] as string;
    if (arg === "--") {
      rest.push(...argv.slice(index));
      break;
    }
    if (arg === FLAG || arg.startsWith(`${FLAG}=`)) {
      const value = arg === FLAG ? argv[++index] : arg.slice(FLAG.length + 1);
      if (value === undefined || value === "" || value.startsWith("-")) throw new CliError(`${FLAG} needs a module: a package name or a file path`);
      // Absolute, so a process started elsewhere (demo workers) finds the same file.
      modules.push(absoluteModuleSpecifier(value));
      continue;
    }
    rest.push(arg);
  }
  return { rest, modules };
}
