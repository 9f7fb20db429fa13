import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureServerBinaries, startZooKeeper, type ZooKeeperServer } from "@distlock/test-servers";
import { runProcess } from "./run-process.js";

/** The Debian jars the interop's Java programs compile and run against. */
export const CURATOR_CLASSPATH: readonly string[] = ["/usr/share/java/curator-recipes.jar", "/usr/share/java/slf4j-nop.jar"];

/** This folder, where the Java sources and the distlock sides' scripts are. */
export const INTEROP_DIR = fileURLToPath(new URL("./", import.meta.url));

/** What an interop test file runs on: one ZooKeeper server, and its Java sides compiled into a temp dir. */
export interface InteropRig {
  readonly server: ZooKeeperServer;
  /** Absolute path of java. */
  readonly java: string;
  /** A temp dir of the file's own, removed by `close`. */
  readonly work: string;
  /** Resolves with the dir of the compiled classes (`work`); a test that awaits it sees a failed compile. */
  readonly classes: Promise<string>;
  /**
   * A run of `sides` processes in a fresh dir of `work`: the witness file they append their holds to, and their
   * environment, which makes each add a line to a barrier file once connected and wait for all of them
   * (`InteropSide.awaitEveryone`, `barrier.mjs`), so that the sides loop at the same time however slowly each starts.
   */
  newRun(sides: number): { readonly witness: string; readonly env: NodeJS.ProcessEnv };
  close(): Promise<void>;
}

/** Starts a ZooKeeper server and compiles `javaSources` (files of this folder, with `InteropSide.java`) for one test file. */
export async function startInteropRig(javaSources: readonly string[]): Promise<InteropRig> {
  const binaries = await ensureServerBinaries(["zookeeper", "curator"]);
  const server = await startZooKeeper();
  const work = mkdtempSync(join(tmpdir(), "distlock-interop-"));
  const classes = compileInteropJava(binaries.get("javac") as string, work, ["InteropSide.java", ...javaSources]);
  const close = async () => {
    await server.close();
    rmSync(work, { recursive: true, force: true });
  };
  const newRun = (sides: number) => {
    const runDir = mkdtempSync(join(work, "run-"));
    return { witness: join(runDir, "witness.log"), env: { ...process.env, INTEROP_BARRIER: `${join(runDir, "barrier")} ${sides}` } };
  };
  return { server, java: binaries.get("java") as string, work, classes, newRun, close };
}

/**
 * Compiles `sources` (files of this folder) into `outDir` with `javac`; resolves with `outDir`. A failure is kept from
 * counting as an unhandled rejection until a test awaits it and sees it.
 */
function compileInteropJava(javac: string, outDir: string, sources: readonly string[]): Promise<string> {
  const compiled = runProcess(javac, ["-cp", CURATOR_CLASSPATH.join(":"), "-d", outDir, ...sources.map((source) => join(INTEROP_DIR, source))]).then(
    () => outDir,
  );
  compiled.catch(() => undefined);
  return compiled;
}

/**
 * Starts Java program `main` of `classes` and waits until it prints "ready" (connected) or ends; `finished` resolves
 * with its stdout when it exits 0 and rejects with its stderr otherwise.
 */
export async function startInteropJava(
  java: string,
  classes: string,
  main: string,
  args: readonly string[],
  env?: NodeJS.ProcessEnv,
): Promise<{ finished: Promise<string> }> {
  let onReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    onReady = resolve;
  });
  const finished = runProcess(java, ["-cp", [classes, ...CURATOR_CLASSPATH].join(":"), main, ...args], (line) => line === "ready" && onReady(), env);
  await Promise.race([ready, finished]);
  return { finished };
}
