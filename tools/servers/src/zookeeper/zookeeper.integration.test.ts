import { describe, expect, it } from "vitest";
import { fourLetterWord } from "../protocol/four-letter-word.js";
import { startZooKeeperEnsemble } from "./zookeeper-ensemble.js";
import { startZooKeeper } from "./zookeeper-server.js";

describe("zookeeper test servers", () => {
  it("a standalone server answers on its random port, survives a crash and a restart, and closes", async () => {
    await using server = await startZooKeeper();
    expect(server.url).toBe(`zookeeper://127.0.0.1:${server.port}`);
    expect(server.port).not.toBe(2181);
    expect(await fourLetterWord(server.port, "ruok")).toBe("imok");
    expect(await server.mode()).toBe("standalone");
    await server.kill();
    await expect(server.mode()).rejects.toThrow();
    await server.start();
    expect(await server.mode()).toBe("standalone");
  });

  it("an ensemble of 3 elects a leader, and another after the leader is killed", async () => {
    await using ensemble = await startZooKeeperEnsemble(3);
    expect(ensemble.url).toBe(`zookeeper://${ensemble.members.map((m) => `127.0.0.1:${m.port}`).join(",")}`);
    const leader = await ensemble.leader();
    const modes = await Promise.all(ensemble.members.map((member) => member.mode()));
    expect(modes.filter((mode) => mode === "leader")).toHaveLength(1);
    expect(modes.filter((mode) => mode === "follower")).toHaveLength(2);
    await leader.kill();
    const next = await ensemble.leader();
    expect(next).not.toBe(leader);
    await leader.start();
    expect(await leader.mode()).toBe("follower");
  });
});
