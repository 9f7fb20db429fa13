import type { LockUrl, ResolvedLockConfig } from "@distlock/core/driver";
import { backendModulesFrom, deploymentChecksOf, loadBackendModules, resolveLockConfig } from "@distlock/core/internal";
import { describeError } from "./doctor-errors.js";
import { type CheckLockBackendOptions, type ResolvedCheckOptions, resolveCheckOptions } from "./doctor-options.js";
import { CheckList, type DoctorReport, doctorReport } from "./doctor-report.js";
import { runSelfTest } from "./self-test.js";

/** A backend's own checks; each resolves false when the backend could not be reached. */
type CheckRun = (url: LockUrl, options: ResolvedCheckOptions, checks: CheckList) => Promise<boolean>;

/** A backend's checks before the self-test, and after it (those read what it created, e.g. the SQLite file). */
interface BackendChecks {
  readonly before?: CheckRun;
  readonly after?: CheckRun;
  /** The self-test also tries the key from another process on this machine (file locks). */
  readonly otherProcess?: boolean;
}

/** Each backend's checks load with the first doctor run on it: a Redis check need not load etcd's or SQL's client. */
const BACKEND_CHECKS: Readonly<Record<string, BackendChecks>> = {
  redis: { before: async (url, _, checks) => (await import("./redis/redis-backend-checks.js")).checkRedisBackend(url, checks) },
  redlock: { before: async (url, options, checks) => (await import("./redlock/redlock-backend-checks.js")).checkRedlockBackend(url, options, checks) },
  etcd: { before: async (url, options, checks) => (await import("./etcd/etcd-checks.js")).checkEtcdBackend(url, options, checks) },
  mysql: { before: async (url, options, checks) => (await import("./sql/mysql-checks.js")).checkMysqlBackend(url, options.ttlMs, checks) },
  postgres: { before: async (url, _, checks) => (await import("./sql/postgres-checks.js")).checkPostgresBackend(url, checks) },
  sqlite: {
    before: async (url, _, checks) => (await import("./sqlite/sqlite-backend-checks.js")).checkSqliteFile(url, checks),
    after: async (url, _, checks) => (await import("./sqlite/sqlite-backend-checks.js")).checkSqliteJournal(url, checks),
    otherProcess: true,
  },
};

/**
 * Checks that a deployment is safe for locks: the backend's own settings (eviction, persistence, replicas, filesystem,
 * ...), then a live self-test on a key of its own that leaves no hold behind. `url` falls back to `DISTLOCK_URL`, then
 * the SQLite default, as `createLockProvider` does. Resolves with one row per check; never throws for what it finds
 * (an unreachable backend is `reachable: false`), only for a malformed URL or options (`INVALID_CONFIG`,
 * `INVALID_ARGUMENT`), before connecting.
 */
export async function checkLockBackend(url?: string, options?: CheckLockBackendOptions): Promise<DoctorReport> {
  const settings = resolveCheckOptions(options);
  await loadBackendModules(backendModulesFrom(process.env));
  const config = resolveLockConfig(url);
  const lockUrl = config.url as LockUrl;
  const checks = new CheckList();
  const own = BACKEND_CHECKS[config.backend] ?? pluggedChecks(config);
  if (own === undefined)
    checks.add(
      "backend",
      config.backend === "memory" ? "warn" : "ok",
      ownChecksMissing(config.backend),
      config.backend === "memory" ? "use a backend with a server to lock across processes" : undefined,
    );
  let reachable = true;
  if (own?.before !== undefined) reachable = await own.before(lockUrl, settings, checks);
  if (reachable && settings.selfTest) reachable = await runSelfTest(url, { ...settings, otherProcess: own?.otherProcess ?? false }, checks);
  if (reachable && own?.after !== undefined) reachable = await own.after(lockUrl, settings, checks);
  return doctorReport(config.backend, lockUrl.redacted, reachable, checks.results);
}

/**
 * The checks a backend brought itself (`BackendModule.checkDeployment`, one registered from outside this CLI): its rows
 * as it reports them; checks that fail to run are one `fail` row, and the self-test still runs.
 */
function pluggedChecks(config: ResolvedLockConfig): BackendChecks | undefined {
  const checkDeployment = deploymentChecksOf(config.backend);
  if (checkDeployment === undefined) return undefined;
  return {
    before: async (_url, _options, checks) => {
      try {
        for (const row of await checkDeployment(config)) checks.add(row.check, row.status, row.found, row.change, row.target);
      } catch (error) {
        checks.add(`${config.backend}.checks`, "fail", `the backend's own checks failed to run: ${describeError(error)}`, "see the backend's documentation");
      }
      return true;
    },
  };
}

function ownChecksMissing(backend: string): string {
  if (backend === "memory") return "memory: locks exclude only within this process";
  return `${backend}: no deployment checks for this backend yet; the live self-test below still runs`;
}
