import { describe, expect, it } from "vitest";
import { MissingBinaryError } from "../errors/missing-binary-error.js";
import { aptInstallCommand } from "./apt-install.js";

describe("aptInstallCommand", () => {
  it("is the exact command a root user runs", () => {
    expect(aptInstallCommand(["etcd-server", "etcd-client"], false)).toBe(
      "apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y etcd-server etcd-client",
    );
  });

  it("uses sudo for other users, and the error message carries it", () => {
    const command = aptInstallCommand(["redis-server"], true);
    expect(command).toBe("sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y redis-server");
    const error = new MissingBinaryError(["redis-server", "redis-cli"], command, ["/usr/sbin"]);
    expect(error.message).toContain(`Install them with: ${command}`);
    expect(error.binaries).toEqual(["redis-server", "redis-cli"]);
  });
});
