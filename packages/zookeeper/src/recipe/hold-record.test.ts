import { describe, expect, it } from "vitest";
import { decodeHoldRecord, encodeHoldRecord, foreignHolder, ownerDigest, ownerOf, zxidOf } from "./hold-record.js";

describe("hold records", () => {
  it("round-trip, and keep only a digest of the owner secret", () => {
    const secret = "owner-secret-value";
    const data = encodeHoldRecord({ holder: "h:1", owner: ownerDigest(secret), count: 2, leaseMs: 500 });
    expect(data.toString()).not.toContain(secret);
    expect(decodeHoldRecord(data)).toEqual({ holder: "h:1", owner: ownerDigest(secret), count: 2, leaseMs: 500 });
  });

  it("are the JSON of the record's fields in their order, whatever the holder label holds", () => {
    for (const holder of ["h:1", 'quote " and \\ backslash', "ünïcode\u2028", "h:2"]) {
      const record = { holder, owner: ownerDigest(holder), count: 3, leaseMs: 10_000 };
      expect(encodeHoldRecord(record).toString()).toBe(JSON.stringify({ distlock: 1, ...record }));
    }
  });

  it("digest each secret, the same secret twice to the same digest", () => {
    const [a, b] = ["secret-a", "secret-b"];
    expect(ownerDigest(a)).toBe(ownerDigest(a));
    expect(ownerDigest(b)).not.toBe(ownerDigest(a));
    expect(ownerDigest(a)).toBe("h2a5ywjmBAtwTx4-4eGG78zyY1sdJjTWUlMzAH5q6uE");
  });

  it("name an owner by the digest of its secret, a fresh owner (nobody else brings its secret) by a random token", () => {
    const ownerSecret = "explicit-owner";
    expect(ownerOf({ ownerSecret })).toBe(ownerDigest(ownerSecret));
    expect(ownerOf({ ownerSecret, freshOwner: false })).toBe(ownerDigest(ownerSecret));
    const [a, b] = [ownerOf({ ownerSecret, freshOwner: true }), ownerOf({ ownerSecret, freshOwner: true })];
    expect(a).not.toBe(b);
    expect([a, b]).not.toContain(ownerDigest(ownerSecret));
    expect(a).not.toContain(ownerSecret);
  });

  it("read a Curator node (its client's IP address as data) as a foreign hold", () => {
    const curator = Buffer.from("10.0.0.7");
    expect(decodeHoldRecord(curator)).toBeUndefined();
    expect(foreignHolder(curator)).toBe("zookeeper:10.0.0.7");
    expect(decodeHoldRecord(Buffer.from("{not json"))).toBeUndefined();
  });

  it("reads a czxid as an unsigned 64-bit token", () => {
    expect(zxidOf(Buffer.from([0, 0, 0, 2, 0, 0, 0, 5]))).toBe((2n << 32n) + 5n);
  });
});
