import { ExitCode } from "./exit-codes.js";

/** A failure of the command itself (not of a lock): printed as one line, ending with `exitCode`. */
export class CliError extends Error {
  readonly exitCode: number;

  constructor(message: string, exitCode: number = ExitCode.Usage) {
    super(message);
    this.name = "CliError";
    this.exitCode = exitCode;
  }
}
