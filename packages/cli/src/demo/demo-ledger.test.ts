import { describe, expect, it } from "vitest";
import { DemoLedger } from "./demo-ledger.js";

describe("DemoLedger", () => {
  it("counts an entry while another worker is inside as an overlap, and a lower token as a stale write", () => {
    const ledger = new DemoLedger();
    ledger.enter(1, 5n);
    ledger.enter(2, 4n);
    expect(ledger).toMatchObject({ sections: 2, overlaps: 1, staleWrites: 1 });
  });

  it("reads an entry a killed worker sent before its death, after it was forgotten, as a section it never holds on to", () => {
    const ledger = new DemoLedger();
    ledger.forget(1);
    ledger.enter(1, 5n);
    ledger.enter(2, 6n);
    ledger.exit(2);
    ledger.enter(3, 7n);
    expect(ledger).toMatchObject({ sections: 3, overlaps: 0, staleWrites: 0 });
  });

  it("still counts the entry of a killed worker that finds another inside", () => {
    const ledger = new DemoLedger();
    ledger.enter(2, 6n);
    ledger.forget(1);
    ledger.enter(1, 7n);
    expect(ledger.overlaps).toBe(1);
  });
});
