import { InvalidConfigError } from "@distlock/core/driver";
import type { StreamInfo } from "@nats-io/jetstream";

/** What the provider asks of a bucket it creates, and of one it finds. */
export interface WantedBucket {
  readonly bucket: string;
  readonly replicas: number;
  readonly storage: string;
}

/**
 * Refuses a bucket whose settings break the lock's guarantees, naming the setting: an age limit (`ttl`) would delete
 * live holds and their fencing history, fewer replicas than asked for lose holds with a server, and another storage
 * (memory instead of file) loses them on a restart, and without a duplicate window two writes on one revision can
 * both be stored on a cluster.
 */
export function checkBucketSettings(info: StreamInfo, wanted: WantedBucket): void {
  const { max_age, num_replicas, storage, max_msgs_per_subject, duplicate_window } = info.config;
  const where = `bucket "${wanted.bucket}"`;
  if (max_age > 0)
    throw new InvalidConfigError("bucket.ttl", `${where} expires its values (ttl ${max_age / 1e6} ms), which deletes live holds; use a bucket without ttl`);
  if (num_replicas < wanted.replicas)
    throw new InvalidConfigError("bucket.replicas", `${where} has ${num_replicas} replica(s), fewer than replicas=${wanted.replicas}`);
  if (storage !== wanted.storage) throw new InvalidConfigError("bucket.storage", `${where} uses ${storage} storage, not storage=${wanted.storage}`);
  // Conditional writes carry a message id per revision they change (see conditional-writes.ts).
  if (!(duplicate_window > 0))
    throw new InvalidConfigError("bucket.duplicate_window", `${where} has no duplicate window, which conditional writes on a cluster rely on`);
  if (max_msgs_per_subject === 0 || max_msgs_per_subject < -1) throw new InvalidConfigError("bucket.history", `${where} keeps no value per key`);
}
