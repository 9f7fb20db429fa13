export { CliError } from "./cli-error.js";
export { checkLockBackend } from "./doctor/check-lock-backend.js";
export type { CheckLockBackendOptions } from "./doctor/doctor-options.js";
export { DEFAULT_CHECK_OPTIONS } from "./doctor/doctor-options.js";
export type { CheckResult, CheckStatus, DoctorReport } from "./doctor/doctor-report.js";
export { ExitCode } from "./exit-codes.js";
export { MAIN_HELP, main } from "./main.js";
