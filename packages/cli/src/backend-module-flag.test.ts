import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { takeBackendModules } from "./backend-module-flag.js";
import { CliError } from "./cli-error.js";

describe("--backend-module", () => {
  it("is taken from anywhere before --, in both spellings, relative paths made absolute", () => {
    expect(
      takeBackendModules(["--backend-module", "pkg-a", "run", "k", "--backend-module=./b.js", "--url", "x://h", "--", "cmd", "--backend-module", "c"]),
    ).toEqual({
      rest: ["run", "k", "--url", "x://h", "--", "cmd", "--backend-module", "c"],
      modules: ["pkg-a", resolve("b.js")],
    });
  });

  it("needs a module after it", () => {
    expect(() => takeBackendModules(["status", "--backend-module"])).toThrow(CliError);
    expect(() => takeBackendModules(["status", "--backend-module", "--json"])).toThrow(CliError);
    expect(() => takeBackendModules(["status", "--backend-module="])).toThrow(CliError);
  });
});
