import { describe, expect, it } from "vitest";
import { decodeHoldRecord, encodeHoldRecord, foreignHolder, ownerDigest, zxidOf } from "./hold-record.js";

describe("hold records", () => {
  it("round-trip, and keep only a digest of the owner secret", () => {
    const secret = "owner-secret-value";
    const data = encodeHoldRecord({ holder: "h:1", owner: ownerDigest(secret), count: 2, leaseMs: 500 });
    expect(data.toString()).not.toContain(secret);
    expect(decodeHoldRecord(data)).toEqual({ holder: "h:1", owner: ownerDigest(secret), count: 2, leaseMs: 500 });
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
