import { createHash } from "node:crypto";

/** Keys, then arguments: ioredis flattens the two lists into one command. */
type ScriptParameters = [keys: readonly string[], args: readonly (string | number)[]];

/** The slice of an ioredis client or cluster a script needs. */
export interface ScriptTarget {
  evalsha(sha: string, numberOfKeys: number, ...keysAndArgs: ScriptParameters): Promise<unknown>;
  eval(lua: string, numberOfKeys: number, ...keysAndArgs: ScriptParameters): Promise<unknown>;
}

/**
 * One Lua script run by EVALSHA, falling back to EVAL (which also caches it on the server) when
 * the server answers NOSCRIPT, e.g. after a restart or a failover. Works on any client without changing it.
 */
export class RedisScript {
  readonly name: string;
  readonly lua: string;
  readonly sha: string;
  readonly numberOfKeys: number | "variable";

  constructor(name: string, lua: string, numberOfKeys: number | "variable") {
    this.name = name;
    this.lua = lua;
    this.sha = createHash("sha1").update(lua).digest("hex");
    this.numberOfKeys = numberOfKeys;
    Object.freeze(this);
  }

  /**
   * The script's reply: `send`, then `resend` if the server had lost the script; a failure of either is rejected as
   * `failure(error)`. One promise over the client's when the script answers.
   */
  run(
    target: ScriptTarget,
    keys: readonly string[],
    args: readonly (string | number)[],
    failure: (error: unknown) => unknown = (error) => error,
  ): Promise<unknown> {
    return this.send(target, keys, args).then(undefined, (error: unknown) => {
      const again = this.resend(error, target, keys, args);
      if (again === undefined) throw failure(error);
      return again.catch((resendError: unknown) => {
        throw failure(resendError);
      });
    });
  }

  /** EVALSHA alone, the client's own promise: the hot path pairs it with `resend` without a promise layer of its own. */
  send(target: ScriptTarget, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    if (!this.takes(keys)) return Promise.reject(new RangeError(`script ${this.name} takes ${this.numberOfKeys} keys, got ${keys.length}`));
    return target.evalsha(this.sha, keys.length, keys, args);
  }

  /** Whether the script takes this many keys. */
  takes(keys: readonly string[]): boolean {
    return this.numberOfKeys === "variable" || keys.length === this.numberOfKeys;
  }

  /** After `send` failed with `error`: EVAL (which also caches the script again) if the server had lost it, else undefined. */
  resend(error: unknown, target: ScriptTarget, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> | undefined {
    return isNoScript(error) ? target.eval(this.lua, keys.length, keys, args) : undefined;
  }
}

/** Whether `error` is the server saying it no longer has the script (after a restart or a failover). */
export function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith("NOSCRIPT");
}
