import { LockError, LockErrorCode } from "@distlock/core";
import { startNats } from "@distlock/test-servers";
import { jetstream } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";
import { afterAll, describe, expect, it } from "vitest";
import { NatsLockProvider } from "../nats-lock-provider.js";

const server = await startNats();
afterAll(() => server.close());

async function createBucket(bucket: string, settings: { ttl?: number; storage?: "memory" }): Promise<void> {
  const connection = await connect({ servers: [`127.0.0.1:${server.port}`] });
  try {
    await new Kvm(jetstream(connection)).create(bucket, { history: 1, ...settings });
  } finally {
    await connection.close();
  }
}

async function refusal(url: string): Promise<unknown> {
  const provider = new NatsLockProvider({ url });
  try {
    return await provider.tryAcquire("k").then(
      () => undefined,
      (error: unknown) => error,
    );
  } finally {
    await provider.close();
  }
}

describe("the lock bucket", () => {
  it("is created on first use with one value per key, file storage and no age limit", async () => {
    const provider = new NatsLockProvider({ url: `${server.url}/fresh` });
    try {
      const lock = await provider.tryAcquire("k", { ttlMs: 10_000 });
      expect(lock?.fencingToken).toBeGreaterThan(0n);
      await lock?.release();
    } finally {
      await provider.close();
    }
  });

  it.each([
    ["an age limit, which would delete live holds", "aged", { ttl: 60_000 }, "bucket.ttl"],
    ["memory storage when file storage is asked for", "volatile", { storage: "memory" as const }, "bucket.storage"],
  ])("is refused when it has %s, naming the setting", async (_, bucket, settings, field) => {
    await createBucket(bucket, settings);
    const error = await refusal(`${server.url}/${bucket}`);
    expect(LockError.is(error, LockErrorCode.InvalidConfig), String(error)).toBe(true);
    expect((error as { field?: string }).field).toBe(field);
  });

  it("is refused when it has fewer replicas than asked for", async () => {
    await createBucket("single", {});
    const error = await refusal(`${server.url}/single?replicas=3`);
    expect((error as { field?: string }).field).toBe("bucket.replicas");
  });
});
