import { createLockProvider, InvalidConfigError, LockErrorCode, type LockProvider } from "@distlock/core";
import { describe, expect, it } from "vitest";
import { expectLockError } from "../expectations.js";
import type { ResolvedConformanceOptions } from "../suite-options.js";

/** Every option a suite's backend takes, with its default: `[name, default]`. */
type Setting = [string, unknown];

/** A value of another type than `example`, which no setting that defaults to `example` can take. */
function wrongType(example: unknown): unknown {
  return typeof example === "string" ? 42 : `not a ${Array.isArray(example) ? "list" : typeof example}`;
}

/** URL query-parameter text that a setting defaulting to `example` cannot take. */
function wrongText(example: unknown): string {
  if (typeof example === "number") return "soon";
  if (typeof example === "boolean") return "maybe";
  return "";
}

function withParam(url: string, name: string, text: string): string {
  return `${url}${url.includes("?") ? "&" : "?"}${encodeURIComponent(name)}=${encodeURIComponent(text)}`;
}

/** The error `build` throws at once, expected to be an `InvalidConfigError` naming `field`. */
function expectThrownConfigError(build: () => LockProvider, field: string): void {
  let thrown: unknown;
  try {
    void build().close();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `expected the constructor to throw INVALID_CONFIG naming ${field}`).toBeInstanceOf(InvalidConfigError);
  expect((thrown as InvalidConfigError).field).toBe(field);
}

async function expectRejectedConfigError(creating: Promise<LockProvider>, field: string): Promise<void> {
  const error = await expectLockError(creating, LockErrorCode.InvalidConfig);
  expect(error).toBeInstanceOf(InvalidConfigError);
  expect((error as InvalidConfigError).field).toBe(field);
}

/**
 * 10. Bad configuration is rejected with INVALID_CONFIG whose `field` names it one way on every backend: `options.<name>`
 * for the constructor's options, `config.<name>` for `createLockProvider`'s object, `url.<param>` for a URL query
 * parameter, `url.scheme` for another backend's URL. The constructor throws it synchronously, so it cannot have
 * come from a server call. Every option with a default is tried.
 */
export function describeConfig(options: ResolvedConformanceOptions): void {
  const config = options.config;
  const settings: Setting[] = config === undefined ? [] : Object.entries(config.defaults);
  const configured = (): NonNullable<typeof config> => {
    if (config === undefined) throw new Error("unreachable: the test is skipped without ConformanceOptions.config");
    return config;
  };

  // Without `config` (a constructor, the defaults and a URL) the area shows as skipped rather than vanishing.
  describe("config", () => {
    it.each(settings)("a constructor option of the wrong type is named options.%s", (name, example) => {
      expectThrownConfigError(() => configured().construct({ [name]: wrongType(example) }), `options.${name}`);
    });

    it.each(settings)("a URL parameter that cannot be read is named url.%s", async (name, example) => {
      await expectRejectedConfigError(createLockProvider(withParam(configured().url, name, wrongText(example))), `url.${name}`);
    });

    it.each(settings)("a createLockProvider option of the wrong type is named config.%s", async (name, example) => {
      await expectRejectedConfigError(createLockProvider({ url: configured().url, [name]: wrongType(example) }), `config.${name}`);
    });

    it.skipIf(config === undefined)("an unknown option, URL parameter or config field is named as it was given", async () => {
      const { construct, url } = configured();
      expectThrownConfigError(() => construct({ notAnOption: 1 }), "options.notAnOption");
      await expectRejectedConfigError(createLockProvider(withParam(url, "notAParameter", "1")), "url.notAParameter");
      await expectRejectedConfigError(createLockProvider({ url, notAnOption: 1 }), "config.notAnOption");
    });

    it.skipIf(config === undefined)("another backend's URL is named url.scheme", () => {
      expectThrownConfigError(() => configured().construct({ url: "memory:conformance" }), "url.scheme");
    });

    it.skipIf(config === undefined)("every default, given explicitly, is accepted, and the URL's scheme reaches this backend", async () => {
      const { construct, defaults, url } = configured();
      const provider = construct({ ...defaults });
      const backend = provider.backend;
      await provider.close();
      const fromUrl = await createLockProvider(url);
      await fromUrl.close();
      expect(fromUrl.backend).toBe(backend);
    });
  });
}
