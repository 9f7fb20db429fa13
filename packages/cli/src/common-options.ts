import type { ParseArgsConfig } from "node:util";
import { CliError } from "./cli-error.js";

/** Options every command takes. */
export const COMMON_OPTIONS = {
  url: { type: "string" },
  json: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const satisfies ParseArgsConfig["options"];

/** Runs a `parseArgs` call, turning its errors into usage errors. */
export function parseCommand<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new CliError(error instanceof Error ? error.message : String(error));
  }
}

/** A duration flag in milliseconds (accepts "500", "500ms", "30s", "2m"); undefined when absent. */
export function parseDuration(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (match === null) throw new CliError(`--${flag} must be a duration like 500ms, 30s or 2m, got "${text}"`);
  const unit = match[2] === "s" ? 1000 : match[2] === "m" ? 60_000 : 1;
  return Number(match[1]) * unit;
}

/** `--permits`: a whole number of permits, 1 or more; undefined when absent. */
export function parsePermits(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[1-9]\d{0,6}$/.test(text.trim())) throw new CliError(`--permits must be a whole number of permits, 1 or more, got "${text}"`);
  return Number(text);
}

/** Splits `args` at "--" into the command's own arguments and the program to run. */
export function splitAtDoubleDash(args: string[]): { own: string[]; program: string[] } {
  const index = args.indexOf("--");
  return index === -1 ? { own: args, program: [] } : { own: args.slice(0, index), program: args.slice(index + 1) };
}
