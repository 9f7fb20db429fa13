import { TestServerError } from "./test-server-error.js";

/** A server binary is not installed and could not be installed automatically. */
export class MissingBinaryError extends TestServerError {
  /** The binaries that were looked for and not found, e.g. `["redis-server"]`. */
  readonly binaries: readonly string[];
  /** The shell command that installs them. */
  readonly installCommand: string;

  constructor(binaries: readonly string[], installCommand: string, searched: readonly string[], options?: ErrorOptions) {
    super(`Missing server binaries: ${binaries.join(", ")} (searched PATH and ${searched.join(", ")}). ` + `Install them with: ${installCommand}`, options);
    this.binaries = Object.freeze([...binaries]);
    this.installCommand = installCommand;
  }
}
