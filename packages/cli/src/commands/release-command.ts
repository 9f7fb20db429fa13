import { parseArgs } from "node:util";
import { createLockProvider } from "@distlock/core";
import { CliError } from "../cli-error.js";
import { COMMON_OPTIONS, parseCommand } from "../common-options.js";
import { printHelp, printJson } from "../output.js";

export const RELEASE_HELP = `Usage: distlock release --force <key> [--url URL] [--json]

Frees <key> whoever holds it (an admin escape hatch; the holder's lock is lost and its next
renewal or release fails). Exit code 0 whether or not the key was held.`;

export async function releaseCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(() =>
    parseArgs({ args: args, options: { ...COMMON_OPTIONS, ...{ force: { type: "boolean", default: false } } }, allowPositionals: true }),
  );
  if (values.help) return printHelp(RELEASE_HELP);
  const [key, ...extra] = positionals;
  if (key === undefined || extra.length > 0) throw new CliError("release takes exactly one <key>");
  if (!values.force) throw new CliError("release frees the key whoever holds it: confirm with --force");
  const provider = await createLockProvider(values.url);
  try {
    const freed = await provider.forceRelease(key);
    if (values.json) printJson({ key, freed });
    else process.stdout.write(freed ? `released "${key}"\n` : `"${key}" was not held\n`);
    return 0;
  } finally {
    await provider.close();
  }
}
