import { InvalidArgumentError } from "@distlock/core";
import type { RedisCommand } from "./fenced-script.js";

/** Checks a list of keys, naming the field: a non-empty array of non-empty strings. */
export function checkKeys(keys: unknown, field: string): readonly string[] {
  if (!Array.isArray(keys) || keys.length === 0) throw new InvalidArgumentError(field, "must be a non-empty array of keys");
  for (const [i, key] of keys.entries()) checkKey(key, `${field}[${i}]`);
  return keys as string[];
}

export function checkKey(key: unknown, field: string): string {
  if (typeof key !== "string" || key === "") throw new InvalidArgumentError(field, "must be a non-empty string");
  return key;
}

/** A command word ioredis sends as it is: a string, a Buffer or a finite number. */
export function isCommandWord(word: unknown): boolean {
  return typeof word === "string" || Buffer.isBuffer(word) || (typeof word === "number" && Number.isFinite(word));
}

/**
 * Checks a list of commands, naming the field. Each command's first argument must be one of `keys`, when `keys`
 * is given: a key the caller forgot to declare would be written without its fence.
 */
export function checkCommands(commands: unknown, field: string, keys?: readonly string[]): readonly RedisCommand[] {
  if (!Array.isArray(commands) || commands.length === 0)
    throw new InvalidArgumentError(field, 'must be a non-empty array of commands like ["SET", key, value]');
  commands.forEach((command: unknown, i) => {
    const at = `${field}[${i}]`;
    if (!Array.isArray(command) || command.length < 2) throw new InvalidArgumentError(at, "must be an array of a command name and its arguments, key first");
    if (typeof command[0] !== "string" || !/^[A-Za-z][A-Za-z0-9._-]*$/.test(command[0])) throw new InvalidArgumentError(`${at}[0]`, "must be a command name");
    command.forEach((word: unknown, j) => {
      if (!isCommandWord(word)) throw new InvalidArgumentError(`${at}[${j}]`, "must be a string, a Buffer or a finite number");
    });
    if (keys !== undefined && !keys.includes(command[1])) throw new InvalidArgumentError(`${at}[1]`, "must be one of options.keys");
  });
  return commands as RedisCommand[];
}
