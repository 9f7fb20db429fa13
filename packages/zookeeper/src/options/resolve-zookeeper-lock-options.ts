import { type BackendOptionsSpec, type BackendSetting, backendSettings, InvalidConfigError, type LockUrl, resolveBackendOptions } from "@distlock/core/driver";
import { lockBackend } from "../lock-backend.js";
import { ZOOKEEPER_LOCK_RECIPES, type ZooKeeperLockRecipe } from "../recipe/lock-layout.js";
import { DEFAULT_ZOOKEEPER_LOCK_OPTIONS, type ResolvedZooKeeperLockOptions, type ZooKeeperLockProviderOptions } from "./zookeeper-lock-provider-options.js";

/** Port ZooKeeper clients use when a URL names none. */
const DEFAULT_CLIENT_PORT = 2181;
const HOST_PORT = /^[^\s/,:]+:\d{1,5}$|^\[[0-9a-fA-F:.]+\]:\d{1,5}$/;
/** Characters ZooKeeper refuses in a path (its PathUtils), besides the "." and ".." segments. */
const BAD_PATH_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\ud800-\uf8ff\ufff0-\uffff]/;

const chrootSetting = backendSettings.text((value, field) => {
  if (typeof value !== "string" || !value.startsWith("/") || value.endsWith("/") || value.includes("//") || BAD_PATH_CHARACTERS.test(value)) {
    throw new InvalidConfigError(field, `must be a ZooKeeper path such as "/distlock": a leading "/", no trailing "/", no empty segment`);
  }
  if (value.split("/").some((segment) => segment === "." || segment === "..")) throw new InvalidConfigError(field, `must not have "." or ".." segments`);
  return value;
});

const recipeSetting = backendSettings.text((value, field) => {
  if (!ZOOKEEPER_LOCK_RECIPES.includes(value as ZooKeeperLockRecipe))
    throw new InvalidConfigError(field, `must be one of ${ZOOKEEPER_LOCK_RECIPES.join(", ")}`);
  return value as ZooKeeperLockRecipe;
}) as BackendSetting<ZooKeeperLockRecipe>;

const hostsSetting: BackendSetting<readonly string[]> = { check: checkHosts, parse: (text, field) => checkHosts(text.split(","), field) };

const ZOOKEEPER_LOCK_OPTIONS: BackendOptionsSpec<typeof DEFAULT_ZOOKEEPER_LOCK_OPTIONS> = {
  backend: "zookeeper",
  urlBackends: ["zookeeper"],
  // Read `zookeeper://` and `zk://` even where nobody registered the backend (a provider constructed directly).
  schemes: lockBackend.schemes,
  urlSchemes: "zookeeper://h1:2181,h2:2181/<chroot> or zk://…",
  ownOptions: [],
  settings: {
    hosts: hostsSetting,
    chroot: chrootSetting,
    sessionTimeoutMs: backendSettings.duration(1),
    connectTimeoutMs: backendSettings.duration(1),
    commandTimeoutMs: backendSettings.duration(1),
    recipe: recipeSetting,
  },
  defaults: DEFAULT_ZOOKEEPER_LOCK_OPTIONS,
  // The URL gives them by its host list and path.
  notParams: ["hosts", "chroot"],
};

/**
 * Validates `options` before anything connects, naming the bad field (`<optionsField>.<name>` for an option,
 * `url.<param>` for a URL query parameter), and applies the defaults; the URL's hosts, path and query parameters fill
 * in what the options leave out.
 */
export function resolveZooKeeperLockOptions(options: ZooKeeperLockProviderOptions = {}, optionsField = "options"): ResolvedZooKeeperLockOptions {
  const { url, holderLabel, settings } = resolveBackendOptions(ZOOKEEPER_LOCK_OPTIONS, options, optionsField);
  if (url?.username !== undefined || url?.password !== undefined) {
    throw new InvalidConfigError("url.username", "ZooKeeper authentication is not supported by this backend; remove the user info");
  }
  return Object.freeze({
    ...settings,
    hosts: options.hosts === undefined && url !== undefined ? hostsOf(url) : settings.hosts,
    chroot: options.chroot === undefined && url !== undefined && url.path !== "" ? chrootSetting.check(`/${url.path}`, "url.path") : settings.chroot,
    holderLabel,
  });
}

function hostsOf(url: LockUrl): readonly string[] {
  return Object.freeze(url.hosts.map(({ host, port }) => `${host.includes(":") ? `[${host}]` : host}:${port ?? DEFAULT_CLIENT_PORT}`));
}

function checkHosts(hosts: unknown, field: string): readonly string[] {
  if (!Array.isArray(hosts) || hosts.length === 0) throw new InvalidConfigError(field, 'must be a non-empty array of "host:port" strings');
  for (const host of hosts) {
    if (typeof host !== "string" || !HOST_PORT.test(host) || Number(host.slice(host.lastIndexOf(":") + 1)) > 65_535) {
      throw new InvalidConfigError(field, `"${String(host)}" is not a "host:port" such as 127.0.0.1:2181`);
    }
  }
  return Object.freeze([...hosts]);
}
