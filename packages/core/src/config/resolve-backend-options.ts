import { InvalidConfigError } from "../errors/invalid-config-error.js";
import { MAX_OWNER_LENGTH } from "../options/defaults.js";
import type { BackendSetting } from "./backend-setting.js";
import type { LockUrl, LockUrlScheme, ResolvedLockConfig } from "./config-types.js";
import { parseLockUrl } from "./lock-url.js";

/** What a backend's provider options are made of, for `resolveBackendOptions`. */
export interface BackendOptionsSpec<S extends object> {
  /** Named in messages, e.g. "redis". */
  readonly backend: string;
  /** The backends whose URLs it takes (a parsed URL's `backend`). */
  readonly urlBackends: readonly string[];
  /**
   * The URL schemes of `urlBackends[0]`, as it registers them: a provider constructed directly (`new MyLockProvider({ url
   * })`) reads its own URL with them even where nobody registered the backend.
   */
  readonly schemes?: readonly (string | LockUrlScheme)[];
  /** Those URLs' schemes, for messages, e.g. "redlock://h1:p1,h2:p2,...". */
  readonly urlSchemes: string;
  /** Options the backend checks itself, besides `url` and `holderLabel`: a client of its own and the like. */
  readonly ownOptions: readonly string[];
  /** Every option with a default, and how a value of it is checked. */
  readonly settings: { readonly [K in keyof S]: BackendSetting<S[K]> };
  /** Every setting's default value, the backend's `DEFAULT_<BACKEND>_LOCK_OPTIONS`. */
  readonly defaults: Readonly<S>;
  /** URL query parameters the backend reads itself (e.g. "tls"). */
  readonly ownParams?: readonly string[];
  /** Settings that are no URL query parameter (e.g. one the URL gives by its host list or path). */
  readonly notParams?: readonly (keyof S & string)[];
}

/** A backend's options after `resolveBackendOptions`. */
export interface ResolvedBackendOptions<S extends object> {
  /** The `url` option, parsed. */
  readonly url: LockUrl | undefined;
  /** The `holderLabel` option, checked; hand it to `DriverLockProvider`. */
  readonly holderLabel: string | undefined;
  /** Every setting: an option wins over the URL's query parameter, and the default fills in what neither gives. */
  readonly settings: Readonly<S>;
  /** What an error about setting `name` names: `url.<name>` when the URL's parameter gave it, else `<optionsField>.<name>`. */
  fieldOf(name: keyof S & string): string;
}

/**
 * The steps every backend's options go through before anything connects: `options` is an object of known names, each
 * setting given as an option or as a URL query parameter passes its check, and the defaults fill in the rest. An error
 * names `<optionsField>.<name>` for an option (`optionsField` is "options" for a constructor, "config" for
 * `createLockProvider`'s object) and `url.<param>` for a URL query parameter, or `url.scheme` for another backend's URL.
 */
export function resolveBackendOptions<S extends object>(spec: BackendOptionsSpec<S>, options: unknown, optionsField: string): ResolvedBackendOptions<S> {
  if (typeof options !== "object" || options === null || Array.isArray(options)) throw new InvalidConfigError(optionsField, "must be an object");
  const given = options as Readonly<Record<string, unknown>>;
  const fromOptions = settingsFromOptions(spec, given, optionsField);
  const url = given.url === undefined ? undefined : backendUrl(spec, given.url);
  const fromUrl = url === undefined ? {} : settingsFromUrl(spec, url);
  const holderLabel = checkHolderLabel(given.holderLabel, `${optionsField}.holderLabel`);
  return {
    url,
    holderLabel,
    settings: Object.freeze({ ...spec.defaults, ...fromUrl, ...fromOptions }),
    fieldOf: (name) => (name in fromUrl && !(name in fromOptions) ? `url.${name}` : `${optionsField}.${name}`),
  };
}

/** The options a backend's provider takes from a config `createLockProvider` resolved: its options, URL and holder label. */
export function providerOptionsFromConfig(config: ResolvedLockConfig): Readonly<Record<string, unknown>> {
  return { ...config.options, url: config.url, holderLabel: config.holderLabel };
}

function settingsFromOptions<S extends object>(spec: BackendOptionsSpec<S>, given: Readonly<Record<string, unknown>>, optionsField: string): Partial<S> {
  const settings: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(given)) {
    if (value === undefined || name === "url" || name === "holderLabel" || spec.ownOptions.includes(name)) continue;
    const setting = settingOf(spec, name);
    if (setting === undefined) {
      const known = ["url", ...spec.ownOptions, ...Object.keys(spec.settings), "holderLabel"];
      throw new InvalidConfigError(`${optionsField}.${name}`, `is not an option of the ${spec.backend} backend; use one of ${known.join(", ")}`);
    }
    settings[name] = setting.check(value, `${optionsField}.${name}`);
  }
  return settings as Partial<S>;
}

function settingsFromUrl<S extends object>(spec: BackendOptionsSpec<S>, url: LockUrl): Partial<S> {
  const settings: Record<string, unknown> = {};
  for (const [name, text] of url.params) {
    if (spec.ownParams?.includes(name)) continue;
    const setting = spec.notParams?.includes(name as keyof S & string) ? undefined : settingOf(spec, name);
    if (setting === undefined) {
      const params = Object.keys(spec.settings).filter((known) => !spec.notParams?.includes(known as keyof S & string));
      const known = [...(spec.ownParams ?? []), ...params];
      throw new InvalidConfigError(`url.${name}`, `is not a parameter of ${url.scheme}: URLs; use one of ${known.join(", ")}`);
    }
    settings[name] = setting.parse(text, `url.${name}`);
  }
  return settings as Partial<S>;
}

function settingOf<S extends object>(spec: BackendOptionsSpec<S>, name: string): BackendSetting<unknown> | undefined {
  return Object.hasOwn(spec.settings, name) ? (spec.settings as Record<string, BackendSetting<unknown>>)[name] : undefined;
}

function backendUrl<S extends object>(spec: BackendOptionsSpec<S>, url: unknown): LockUrl {
  const own = spec.schemes === undefined || spec.urlBackends[0] === undefined ? undefined : { backend: spec.urlBackends[0], schemes: spec.schemes };
  const parsed = isLockUrl(url) ? url : parseLockUrl(url, own);
  if (!spec.urlBackends.includes(parsed.backend)) {
    throw new InvalidConfigError(
      "url.scheme",
      `"${parsed.scheme}:" is for the ${parsed.backend} backend; the ${spec.backend} backend takes ${spec.urlSchemes}`,
    );
  }
  return parsed;
}

function isLockUrl(url: unknown): url is LockUrl {
  return typeof url === "object" && url !== null && (url as Partial<LockUrl>).params instanceof URLSearchParams;
}

function checkHolderLabel(label: unknown, field: string): string | undefined {
  if (label !== undefined && (typeof label !== "string" || label.length > MAX_OWNER_LENGTH))
    throw new InvalidConfigError(field, `must be a string of at most ${MAX_OWNER_LENGTH} characters`);
  return label;
}
