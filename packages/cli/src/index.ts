export { CliError } from "./cli-error.js";
export { ExitCode } from "./exit-codes.js";
export { MAIN_HELP, main } from "./main.js";
