import { describe, expect, it } from "vitest";
import { renderMarkdownTable } from "./markdown-table.js";

describe("renderMarkdownTable", () => {
  it("prints every metric of every row and the ratio to the baseline, with a dash where a value is missing", () => {
    const markdown = renderMarkdownTable({
      id: "t",
      title: "Title",
      baseline: "floor",
      ratioOf: "ops/s",
      rows: [
        { scenario: "s", subject: "floor", metrics: { "ops/s": 2_000 } },
        { scenario: "s", subject: "ours", metrics: { "ops/s": 1_500, "p50 µs": 12.345 } },
      ],
      notes: ["- a note"],
    });
    expect(markdown.split("\n")).toEqual([
      "### Title",
      "",
      "| scenario | subject | ops/s | p50 µs | ops/s ÷ floor |",
      "|---|---|---|---|---|",
      "| s | floor | 2,000 | – | 1.00× |",
      "| s | ours | 1,500 | 12.3 | 0.75× |",
      "",
      "- a note",
    ]);
  });
});
