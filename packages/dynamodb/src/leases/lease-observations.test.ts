import { describe, expect, it } from "vitest";
import { LeaseObservations } from "./lease-observations.js";

describe("LeaseObservations", () => {
  const observations = () => new LeaseObservations({ driftRate: 0.01, driftMarginMs: 100 });

  it("a hold may be taken over only after its version was seen unchanged for lease x (1 + drift) + margin", () => {
    const leases = observations();
    const first = leases.see("k", "v1", 1000, 0);
    expect(leases.see("k", "v1", 1000, 900)).toBe(first);
    expect(leases.untilTakeover(first, 1109)).toBe(1);
    expect(leases.untilTakeover(first, 1110)).toBe(0);
  });

  it("a new version (a renewal) starts the count again", () => {
    const leases = observations();
    leases.see("k", "v1", 1000, 0);
    const renewed = leases.see("k", "v2", 1000, 1000);
    expect(leases.untilTakeover(renewed, 1500)).toBe(610);
  });

  it("estimates the lease left from the sighting's age, within 1 and the lease", () => {
    const leases = observations();
    const seen = leases.see("k", "v1", 1000, 0);
    expect(leases.leaseLeftMs(seen, 0)).toBe(1000);
    expect(leases.leaseLeftMs(seen, 400)).toBe(600);
    expect(leases.leaseLeftMs(seen, 5000)).toBe(1);
  });

  it("forgets a key seen free", () => {
    const leases = observations();
    leases.see("k", "v1", 1000, 0);
    leases.forget("k");
    expect(leases.has("k")).toBe(false);
  });
});
