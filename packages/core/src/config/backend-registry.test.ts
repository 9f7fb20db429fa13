import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { LockError } from "../errors/lock-error.js";
import { MemoryLockProvider } from "../memory/memory-lock-provider.js";
import type { LockProvider } from "../types.js";
import { loadBackendModules } from "./backend-modules.js";
import { deploymentChecksOf, registerLockBackend } from "./backend-registry.js";
import type { ResolvedLockConfig } from "./config-types.js";
import { createLockProvider } from "./create-lock-provider.js";
import { parseLockUrl } from "./lock-url.js";

const opened: LockProvider[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((p) => p.close()));
});

function configError(run: () => unknown): LockError & { field: string } {
  try {
    run();
  } catch (error) {
    if (LockError.is(error, "INVALID_CONFIG")) return error as LockError & { field: string };
    throw error;
  }
  throw new Error("expected INVALID_CONFIG");
}

async function rejection(promise: Promise<unknown>) {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error as LockError & { field: string },
  );
}

const fixture = (name: string) => fileURLToPath(new URL(`./${name}.test-support.ts`, import.meta.url));

describe("registerLockBackend", () => {
  it("gives a backend its own URL schemes, so createLockProvider reaches it by URL with hosts, path and parameters", async () => {
    const seen: ResolvedLockConfig[] = [];
    registerLockBackend(
      "scheme-probe",
      (config) => {
        seen.push(config);
        return new MemoryLockProvider({ store: "scheme-probe", holderLabel: config.holderLabel });
      },
      { schemes: ["scheme-probe", { scheme: "scheme-probe+tls", variant: "tls", hosts: "one" }] },
    );
    const provider = await createLockProvider("scheme-probe://user:secret@h1:4222,[::1]:4223/bucket/a?timeoutMs=5");
    opened.push(provider);
    expect(provider.backend).toBe("memory");
    const [config] = seen;
    expect(config?.backend).toBe("scheme-probe");
    expect(config?.url).toMatchObject({ scheme: "scheme-probe", backend: "scheme-probe", variant: undefined, path: "bucket/a", username: "user" });
    expect(config?.url?.hosts).toEqual([
      { host: "h1", port: 4222 },
      { host: "::1", port: 4223 },
    ]);
    expect(config?.url?.params.get("timeoutMs")).toBe("5");
    expect(config?.url?.redacted).not.toContain("secret");
    expect(parseLockUrl("SCHEME-PROBE+TLS://h1").variant).toBe("tls");
    expect(configError(() => parseLockUrl("scheme-probe+tls://h1,h2")).field).toBe("url.host");
  });

  it("reads an opaque scheme's text after the colon as its path", () => {
    registerLockBackend("opaque-probe", () => new MemoryLockProvider(), { schemes: [{ scheme: "opaque-probe", hosts: "none" }] });
    expect(parseLockUrl("opaque-probe:./data/locks.db")).toMatchObject({ backend: "opaque-probe", hosts: [], path: "./data/locks.db" });
  });

  it("refuses a scheme another backend owns, built-in or registered, naming it", () => {
    expect(configError(() => registerLockBackend("thief", () => new MemoryLockProvider(), { schemes: ["redis"] })).message).toContain('"redis:"');
    registerLockBackend("first-owner", () => new MemoryLockProvider(), { schemes: ["owned-probe"] });
    const error = configError(() => registerLockBackend("second-owner", () => new MemoryLockProvider(), { schemes: ["owned-probe"] }));
    expect(error.field).toBe("schemes");
    expect(error.message).toContain("first-owner");
    expect(parseLockUrl("redis://h").backend).toBe("redis");
    expect(() => parseLockUrl("owned-probe://h")).not.toThrow();
    expect(configError(() => parseLockUrl("thief://h")).field).toBe("url.scheme");
  });

  it("lets a backend that registers again replace its schemes, and keep them when it names none", () => {
    registerLockBackend("moving-probe", () => new MemoryLockProvider(), { schemes: ["moving-old"] });
    registerLockBackend("moving-probe", () => new MemoryLockProvider(), { schemes: ["moving-new"] });
    expect(configError(() => parseLockUrl("moving-old://h")).field).toBe("url.scheme");
    registerLockBackend("moving-probe", () => new MemoryLockProvider());
    expect(parseLockUrl("moving-new://h").backend).toBe("moving-probe");
  });

  it("refuses a malformed name, factory or scheme before registering anything", () => {
    expect(configError(() => registerLockBackend("Bad Name", () => new MemoryLockProvider())).field).toBe("backend");
    expect(configError(() => registerLockBackend("no-factory", 42 as never)).field).toBe("factory");
    expect(configError(() => registerLockBackend("bad-scheme", () => new MemoryLockProvider(), { schemes: ["no spaces"] })).field).toBe("schemes");
    expect(configError(() => registerLockBackend("twice", () => new MemoryLockProvider(), { schemes: ["twice-probe", "twice-probe"] })).field).toBe("schemes");
    expect(configError(() => parseLockUrl("twice-probe://h")).field).toBe("url.scheme");
    expect(configError(() => registerLockBackend("bad-checks", () => new MemoryLockProvider(), { checkDeployment: "yes" as never })).field).toBe(
      "checkDeployment",
    );
  });

  it("keeps the deployment checks a backend registers with, for distlock doctor", async () => {
    const checkDeployment = async () => [{ check: "checks-probe.replicas", status: "ok" as const, found: "3 replicas" }];
    registerLockBackend("checks-probe", () => new MemoryLockProvider(), { checkDeployment });
    expect(deploymentChecksOf("checks-probe")).toBe(checkDeployment);
    expect(deploymentChecksOf("memory")).toBeUndefined();
  });

  it("names every registered scheme when a URL's is unknown", () => {
    registerLockBackend("listed-probe", () => new MemoryLockProvider(), { schemes: ["listed-probe"] });
    const error = configError(() => parseLockUrl("nope://h"));
    expect(error.field).toBe("url.scheme");
    expect(error.message).toContain("listed-probe:");
    expect(error.message).toContain("redis+cluster:");
  });
});

describe("backend modules (DISTLOCK_BACKENDS)", () => {
  it("registers a module by its path under the name and schemes it exports, once", async () => {
    await loadBackendModules([fixture("backend-module"), fixture("backend-module")]);
    const provider = await createLockProvider("module-probe://a,b");
    opened.push(provider);
    const other = await createLockProvider({ backend: "module-probe", url: "module-probe://a,b", holderLabel: "other" });
    opened.push(other);
    const lock = await provider.acquire("k");
    expect(await other.tryAcquire("k")).toBeNull();
    await lock.release();
  });

  it("loads the modules DISTLOCK_BACKENDS lists before building a provider", async () => {
    const before = process.env.DISTLOCK_BACKENDS;
    process.env.DISTLOCK_BACKENDS = ` ${fixture("backend-module")} ,`;
    try {
      const provider = await createLockProvider("module-probe://env");
      opened.push(provider);
      expect((await provider.acquire("k")).holdCount).toBe(1);
    } finally {
      if (before === undefined) delete process.env.DISTLOCK_BACKENDS;
      else process.env.DISTLOCK_BACKENDS = before;
    }
  });

  it("names DISTLOCK_BACKENDS when a module is missing or exports no lockBackend", async () => {
    const missing = await rejection(loadBackendModules(["/nowhere/no-such-backend.js"]));
    expect(LockError.is(missing, "INVALID_CONFIG")).toBe(true);
    expect(missing.field).toBe("DISTLOCK_BACKENDS");
    const unnamed = await rejection(loadBackendModules([fixture("backend-module-without-name")], "ConformanceOptions.backendModule"));
    expect(unnamed.field).toBe("ConformanceOptions.backendModule");
    expect(unnamed.message).toContain("lockBackend");
  });
});
