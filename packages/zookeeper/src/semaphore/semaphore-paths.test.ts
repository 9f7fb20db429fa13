import { describe, expect, it } from "vitest";
import { heldLeases } from "./semaphore-paths.js";

describe("the leases that hold permits", () => {
  it("leaves out the newest grant's nodes while the leases stand for more than the permits: its acquirer is still waiting", () => {
    const writer = "_c_w-w1000000-lease-0000000004";
    const waitingReader = "_c_r-lease-0000000005";
    expect(heldLeases([waitingReader, writer], 1_000_000)).toEqual([writer]);
    const twoOfThree = ["_c_a-lease-0000000001", "_c_b-lease-0000000002"];
    const waitingPair = ["_c_c-lease-0000000003", "_c_c-lease-0000000004"];
    expect(heldLeases([...waitingPair, ...twoOfThree], 3)).toEqual(twoOfThree);
    expect(heldLeases([...twoOfThree, waitingPair[0] as string], 3)).toEqual([...twoOfThree, waitingPair[0]]);
  });

  it("counts every node when the permit count is unknown (a semaphore only Curator opened), and a node without a uuid alone", () => {
    const leases = ["lease-0000000002", "_c_a-lease-0000000001", "lease-0000000003"];
    expect(heldLeases(leases, undefined)).toEqual(["_c_a-lease-0000000001", "lease-0000000002", "lease-0000000003"]);
    expect(heldLeases(leases, 2)).toEqual(["_c_a-lease-0000000001", "lease-0000000002"]);
  });
});
