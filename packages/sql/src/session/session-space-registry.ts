import type { SessionLockSpace } from "./session-lock-space.js";

const spaces = new Map<string, { space: SessionLockSpace; users: number }>();

/** The process's lock space for `identity` (database, user, table), created by `create` for its first user. */
export function useSessionLockSpace(identity: string, create: () => SessionLockSpace): { space: SessionLockSpace; leave: () => void } {
  const entry = spaces.get(identity) ?? { space: create(), users: 0 };
  spaces.set(identity, entry);
  entry.users++;
  let left = false;
  const leave = () => {
    if (left) return;
    left = true;
    if (--entry.users > 0) return;
    spaces.delete(identity);
    entry.space.close();
  };
  return { space: entry.space, leave };
}
