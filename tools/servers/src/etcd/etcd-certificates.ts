import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runCommand } from "../process/run-command.js";

/** PEM material a client needs for a TLS member that requires client certificates. */
export interface EtcdClientTls {
  /** The throwaway CA that signed the member's and the client's certificates. */
  readonly ca: string;
  /** A client certificate signed by that CA. */
  readonly cert: string;
  /** Its private key. */
  readonly key: string;
}

/** The files an etcd member serving TLS is started with, and what its clients need. */
export interface EtcdCertificates {
  readonly caFile: string;
  readonly serverCertFile: string;
  readonly serverKeyFile: string;
  readonly client: EtcdClientTls;
}

const OPENSSL_TIMEOUT_MS = 30_000;
const NEW_EC_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

/** Makes a CA, a server certificate for 127.0.0.1 and a client certificate in `dir`, with `openssl`. */
export async function createEtcdCertificates(dir: string, openssl: string): Promise<EtcdCertificates> {
  const path = (name: string) => join(dir, name);
  const run = (args: string[]) => runCommand(openssl, args, { timeoutMs: OPENSSL_TIMEOUT_MS, cwd: dir });
  await run(["req", "-x509", ...NEW_EC_KEY, "-keyout", path("ca.key"), "-out", path("ca.crt"), "-days", "2", "-subj", "/CN=distlock test CA"]);
  const sign = async (name: string, subject: string, extensions: string) => {
    await writeFile(path(`${name}.ext`), extensions);
    await run(["req", ...NEW_EC_KEY, "-keyout", path(`${name}.key`), "-out", path(`${name}.csr`), "-subj", subject]);
    // biome-ignore format: flag/value pairs read better one pair per line
    await run([
      "x509", "-req",
      "-in", path(`${name}.csr`),
      "-CA", path("ca.crt"),
      "-CAkey", path("ca.key"),
      "-CAcreateserial",
      "-out", path(`${name}.crt`),
      "-days", "2",
      "-extfile", path(`${name}.ext`),
    ]);
  };
  await sign("server", "/CN=127.0.0.1", "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n");
  await sign("client", "/CN=distlock test client", "extendedKeyUsage=clientAuth\n");
  const [ca, cert, key] = await Promise.all(["ca.crt", "client.crt", "client.key"].map((name) => readFile(path(name), "utf8")));
  return {
    caFile: path("ca.crt"),
    serverCertFile: path("server.crt"),
    serverKeyFile: path("server.key"),
    client: { ca: ca as string, cert: cert as string, key: key as string },
  };
}
