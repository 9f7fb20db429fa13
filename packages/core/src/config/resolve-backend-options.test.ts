import { describe, expect, it } from "vitest";
import { InvalidConfigError } from "../errors/invalid-config-error.js";
import { backendSettings } from "./backend-setting.js";
import { resolveLockConfig } from "./lock-config.js";
import { type BackendOptionsSpec, providerOptionsFromConfig, resolveBackendOptions } from "./resolve-backend-options.js";

interface TestSettings {
  timeoutMs: number;
  ratio: number;
  fast: boolean;
  prefix: string;
}

const SPEC: BackendOptionsSpec<TestSettings> = {
  backend: "redis",
  urlBackends: ["redis"],
  urlSchemes: "redis://",
  ownOptions: ["client"],
  settings: {
    timeoutMs: backendSettings.duration(1),
    ratio: backendSettings.number(0, 0.5),
    fast: backendSettings.boolean,
    prefix: backendSettings.text((value, field) => {
      if (typeof value !== "string" || value === "") throw new InvalidConfigError(field, "must be a non-empty string");
      return value;
    }),
  },
  defaults: { timeoutMs: 100, ratio: 0.1, fast: false, prefix: "p" },
  ownParams: ["tls"],
  notParams: ["prefix"],
};

function fieldOfError(options: unknown, optionsField = "options"): string {
  try {
    resolveBackendOptions(SPEC, options, optionsField);
  } catch (error) {
    if (!(error instanceof InvalidConfigError)) throw error;
    return error.field;
  }
  throw new Error("expected an InvalidConfigError");
}

describe("resolveBackendOptions", () => {
  it.each([
    ["options that are not an object", "redis://h", "options"],
    ["an array", [], "options"],
    ["an unknown option", { retries: 3 }, "options.retries"],
    ["a setting of the wrong type", { timeoutMs: "10" }, "options.timeoutMs"],
    ["a fractional whole number", { timeoutMs: 1.5 }, "options.timeoutMs"],
    ["a number out of range", { ratio: 0.6 }, "options.ratio"],
    ["a boolean given as text", { fast: "true" }, "options.fast"],
    ["a label that is no string", { holderLabel: 7 }, "options.holderLabel"],
    ["a URL that is no string", { url: 42 }, "url"],
    ["another backend's URL", { url: "etcd://h:2379" }, "url.scheme"],
    ["an unknown URL parameter", { url: "redis://h?retries=3" }, "url.retries"],
    ["a setting that is no URL parameter", { url: "redis://h?prefix=x" }, "url.prefix"],
    ["URL text that is no number", { url: "redis://h?timeoutMs=soon" }, "url.timeoutMs"],
    ["URL text that is no whole number", { url: "redis://h?timeoutMs=1.5" }, "url.timeoutMs"],
    ["URL text that is not true or false", { url: "redis://h?fast=1" }, "url.fast"],
    ["a bad URL parameter that an option overrides", { url: "redis://h?timeoutMs=0", timeoutMs: 5 }, "url.timeoutMs"],
  ])("rejects %s, naming %s", (_, options, field) => {
    expect(fieldOfError(options)).toBe(field);
  });

  it("names an option under the field the caller gives, e.g. config for createLockProvider", () => {
    expect(fieldOfError({ retries: 3 }, "config")).toBe("config.retries");
    expect(fieldOfError(null, "config")).toBe("config");
  });

  it("lets the backend's own options and parameters through, and skips options set to undefined", () => {
    const resolved = resolveBackendOptions(SPEC, { client: {}, url: "redis://h?tls=true", ratio: undefined }, "options");
    expect(resolved.settings).toEqual(SPEC.defaults);
    expect(resolved.url?.params.get("tls")).toBe("true");
  });

  it("takes an option over the URL's parameter over the default, and names where each came from", () => {
    const resolved = resolveBackendOptions(SPEC, { url: "redis://h?timeoutMs=20&ratio=0.25&fast=true", fast: false, holderLabel: "me" }, "config");
    expect(resolved.settings).toEqual({ timeoutMs: 20, ratio: 0.25, fast: false, prefix: "p" });
    expect([resolved.fieldOf("timeoutMs"), resolved.fieldOf("fast"), resolved.fieldOf("prefix")]).toEqual(["url.timeoutMs", "config.fast", "config.prefix"]);
    expect(resolved.holderLabel).toBe("me");
    expect(Object.isFrozen(resolved.settings)).toBe(true);
  });

  it("takes a URL createLockProvider already parsed as it is", () => {
    const config = resolveLockConfig({ url: "redis://h:1?ratio=0.5", holderLabel: "app", fast: true });
    const resolved = resolveBackendOptions(SPEC, providerOptionsFromConfig(config), "config");
    expect(resolved.url).toBe(config.url);
    expect(resolved.settings).toMatchObject({ ratio: 0.5, fast: true });
    expect(resolved.holderLabel).toBe("app");
  });
});

describe("a backend's own schemes", () => {
  const OWN: BackendOptionsSpec<TestSettings> = { ...SPEC, backend: "unregistered-probe", urlBackends: ["unregistered-probe"], schemes: ["own-probe"] };

  it("read its URL for a provider constructed before anyone registered the backend", () => {
    const resolved = resolveBackendOptions(OWN, { url: "own-probe://h1:1,h2:2/store?timeoutMs=7" }, "options");
    expect(resolved.url).toMatchObject({ backend: "unregistered-probe", scheme: "own-probe", path: "store" });
    expect(resolved.url?.hosts).toHaveLength(2);
    expect(resolved.settings.timeoutMs).toBe(7);
  });

  it("do not make another unregistered scheme, or another backend's, readable", () => {
    expect(() => resolveBackendOptions(OWN, { url: "other-probe://h" }, "options")).toThrow(expect.objectContaining({ field: "url.scheme" }));
    expect(() => resolveBackendOptions(OWN, { url: "redis://h" }, "options")).toThrow(expect.objectContaining({ field: "url.scheme" }));
  });
});
