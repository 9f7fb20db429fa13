import { createLockProvider, type Lock, type LockProvider } from "@distlock/core";
import { describeError, isUnreachable } from "./doctor-errors.js";
import type { ResolvedCheckOptions } from "./doctor-options.js";
import type { CheckList } from "./doctor-report.js";
import { tryKeyFromOtherProcess } from "./other-process-probe.js";
import { roundTripVerdict } from "./round-trip-verdict.js";

/** The self-test's settings; `otherProcess` adds a second process on this machine to the exclusion check (file-based backends). */
export type SelfTestOptions = ResolvedCheckOptions & { readonly otherProcess: boolean };

/** How long the self-test waits for its own key (another doctor may be running its self-test). */
const SELF_TEST_WAIT_MS = 10_000;

/**
 * The live self-test, on the public API only: acquire and release, a second provider excluded, fencing tokens
 * increasing across holders, the acquire+release round trip against the lease, and the key free at the end.
 * Resolves false when the backend could not be reached.
 */
export async function runSelfTest(url: string | undefined, options: SelfTestOptions, checks: CheckList): Promise<boolean> {
  const key = options.selfTestKey;
  let first: LockProvider | undefined;
  let second: LockProvider | undefined;
  try {
    first = await createLockProvider(url);
    second = await createLockProvider(url);
    const held = await first.acquire(key, { ttlMs: options.ttlMs, waitMs: SELF_TEST_WAIT_MS });
    checks.ok("self-test.acquire", `acquired "${key}" (fencing token ${held.fencingToken ?? "none"})`);
    await checkExclusion(second, key, checks);
    if (options.otherProcess) await checkOtherProcessExcluded(url, key, checks);
    await held.release();
    const next = await second.acquire(key, { ttlMs: options.ttlMs, waitMs: SELF_TEST_WAIT_MS });
    await next.release();
    checkTokens(first, held, next, checks);
    await measureRoundTrip(first, key, options, checks);
    await checkNothingLeft(first, key, checks);
    return true;
  } catch (error) {
    if (isUnreachable(error)) {
      checks.add("self-test", "fail", `the backend could not be reached: ${describeError(error)}`, "check the URL, the network and that the server runs");
      return false;
    }
    checks.add("self-test", "fail", describeError(error), "fix the error above; the backend did not complete a lock round trip");
    if (first !== undefined) await first.forceRelease(key).catch(() => undefined);
    return true;
  } finally {
    await Promise.allSettled([first?.close(), second?.close()]);
  }
}

async function checkExclusion(second: LockProvider, key: string, checks: CheckList): Promise<void> {
  const intruder = await second.tryAcquire(key);
  if (intruder === null) {
    checks.ok("self-test.exclusion", "a second provider could not take the key while it was held");
    return;
  }
  await intruder.release().catch(() => undefined);
  checks.add("self-test.exclusion", "fail", "a second provider took the key while the first held it", "this backend does not exclude: do not use it for locks");
}

async function checkOtherProcessExcluded(url: string | undefined, key: string, checks: CheckList): Promise<void> {
  const outcome = await tryKeyFromOtherProcess(url, key);
  if (outcome === "excluded") checks.ok("self-test.other-process", "another process on this machine could not take the key while it was held");
  else
    checks.add(
      "self-test.other-process",
      "fail",
      "another process on this machine took the key while this one held it",
      "file locks do not work on this filesystem: move the database to a local disk",
    );
}

function checkTokens(provider: LockProvider, earlier: Lock, later: Lock, checks: CheckList): void {
  if (!provider.capabilities.fencing) {
    checks.add(
      "self-test.fencing",
      "warn",
      `${provider.backend} gives no fencing tokens`,
      "protect the resource another way (a version column, @distlock/fence's optimistic writes)",
    );
    return;
  }
  const [a, b] = [earlier.fencingToken, later.fencingToken];
  if (a !== null && b !== null && b > a) checks.ok("self-test.fencing", `tokens increased across holders (${a} then ${b})`);
  else
    checks.add(
      "self-test.fencing",
      "fail",
      `the next holder's token did not increase (${a ?? "none"} then ${b ?? "none"})`,
      "tokens must increase: check that no other deployment shares this prefix with an older version",
    );
}

async function measureRoundTrip(provider: LockProvider, key: string, options: ResolvedCheckOptions, checks: CheckList): Promise<void> {
  const samples: number[] = [];
  for (let round = 0; round < options.roundTrips; round++) {
    const started = performance.now();
    const lock = await provider.acquire(key, { ttlMs: options.ttlMs, waitMs: SELF_TEST_WAIT_MS, autoRenew: false });
    await lock.release();
    samples.push(performance.now() - started);
  }
  const verdict = roundTripVerdict(samples, options.ttlMs);
  checks.add("self-test.round-trip", verdict.status, verdict.found, verdict.change);
}

async function checkNothingLeft(provider: LockProvider, key: string, checks: CheckList): Promise<void> {
  const state = await provider.inspect(key);
  if (state === null) {
    checks.ok("self-test.cleanup", `"${key}" is free again`);
    return;
  }
  await provider.forceRelease(key);
  checks.add(
    "self-test.cleanup",
    "fail",
    `"${key}" was still held by ${state.holder} after release`,
    "the backend kept a released hold: report it with the server's version",
  );
}
