import { hash } from "node:crypto";

/** What distlock stores in its member key; keys written by etcdctl or Go's concurrency.Mutex hold an empty value. */
export interface MemberValue {
  /** SHA-256 of the owner secret: enough to check ownership, useless for impersonating the owner. */
  readonly owner: string;
  /** Public label of the holder. */
  readonly holder: string;
  /** Reentrancy depth of a lock hold; permits taken by a semaphore grant. */
  readonly count: number;
  /** Only on a semaphore's member keys: the permit count the semaphore is in use with. */
  readonly permits?: number;
}

/**
 * `<prefix>/\0`: no lock key starts with a control character, so no lock's `<prefix>/<key>/` reaches the keys under it;
 * the semaphores live there.
 */
export function reservedPrefix(prefix: string): Buffer {
  return Buffer.from(`${prefix}/\u0000`);
}

/** `<prefix>/<key>/`: every contender of `key` puts one member key below it, exactly as Go's `concurrency.NewMutex(session, "<prefix>/<key>")`. */
export function lockPrefix(prefix: string, key: string): Buffer {
  return Buffer.from(`${prefix}/${key}/`);
}

/**
 * `<prefix>/<key>/<leaseIdHex>`, the member key of one lease (Go: `fmt.Sprintf("%s%x", pfx, leaseID)`);
 * suffix n > 0 (another owner of the same provider) appends `-<n>`. Go and etcdctl only order the keys
 * under the prefix by create revision and never parse their names, so suffixed keys queue with them.
 */
export function memberKey(lockPrefixBytes: Buffer, leaseId: string, suffix = 0): Buffer {
  const name = BigInt(leaseId).toString(16);
  return Buffer.concat([lockPrefixBytes, Buffer.from(suffix === 0 ? name : `${name}-${suffix}`)]);
}

/** The exclusive end of the range holding every key that starts with `prefix` (etcd's `clientv3.GetPrefixRangeEnd`). */
export function prefixRangeEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if ((end[i] as number) < 0xff) {
      end[i] = (end[i] as number) + 1;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]);
}

/** The digest stored for an owner secret. */
export function ownerDigest(ownerSecret: string): string {
  return hash("sha256", ownerSecret, "hex");
}

/** The value of a new member key that `request` puts: its owner's digest, its label, count 1. */
export function newHoldValue(request: { readonly ownerSecret: string; readonly holder: string }): MemberValue {
  return { owner: ownerDigest(request.ownerSecret), holder: request.holder, count: 1 };
}

/**
 * The member key's bytes: `JSON.stringify(value)` with its fields in this order, written out by hand because this runs on
 * every acquire, where stringifying the object costs several times as much as joining its parts.
 */
export function encodeMemberValue(value: MemberValue): Buffer {
  const permits = value.permits === undefined ? "" : `,"permits":${value.permits}`;
  return Buffer.from(`{"owner":${JSON.stringify(value.owner)},"holder":${JSON.stringify(value.holder)},"count":${value.count}${permits}}`);
}

/** The distlock value of a member key, or undefined for a key some other client (etcdctl, Go) wrote. */
export function decodeMemberValue(bytes: Buffer | undefined): MemberValue | undefined {
  if (bytes === undefined || bytes.length === 0) return undefined;
  try {
    const parsed = JSON.parse(bytes.toString("utf8")) as Partial<MemberValue>;
    const { owner, holder, count, permits } = parsed;
    if (typeof owner !== "string" || typeof holder !== "string" || !isPositiveInteger(count)) return undefined;
    if (permits === undefined) return { owner, holder, count };
    return isPositiveInteger(permits) ? { owner, holder, count, permits } : undefined;
  } catch {
    return undefined;
  }
}

function isPositiveInteger(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 1;
}
