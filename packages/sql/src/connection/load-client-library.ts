import { InvalidConfigError } from "@distlock/core";

/** Who asked for a client library: named in the error when it cannot be loaded. */
export interface ClientLibraryRequest {
  /** The config field, e.g. "options.url". */
  readonly field: string;
  /** What needs the library, e.g. "postgres: URLs". */
  readonly neededBy: string;
}

/**
 * Starts importing an optional peer dependency (`pg`, `mysql2`, `better-sqlite3`) and resolves with its default
 * export. One that is missing or fails to load rejects with an `InvalidConfigError` on `request.field` saying
 * what to install. The promise is marked handled: a provider that is never used leaves no unhandled rejection.
 */
export function loadClientLibrary<T>(packageName: string, request: ClientLibraryRequest): Promise<T> {
  const loading = importDefault<T>(packageName, request);
  loading.catch(() => undefined);
  return loading;
}

async function importDefault<T>(packageName: string, { field, neededBy }: ClientLibraryRequest): Promise<T> {
  try {
    const namespace: { default: T } = await import(packageName);
    return namespace.default;
  } catch (error) {
    const problem = isMissing(error, packageName)
      ? `${neededBy} need the ${packageName} package, which is not installed; run npm install ${packageName}`
      : `${neededBy} need the ${packageName} package, which is installed but failed to load (${String(error)}); reinstall it with npm install ${packageName}`;
    throw new InvalidConfigError(field, problem, { cause: error });
  }
}

/** Node's "Cannot find package '<name>' imported from …", not a missing dependency of the package itself. */
function isMissing(error: unknown, packageName: string): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === "ERR_MODULE_NOT_FOUND" && String(message).includes(`'${packageName}'`);
}
