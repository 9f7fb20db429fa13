import { ConsecutiveBreaker, circuitBreaker, handleWhen } from "cockatiel";
import { Etcd3, type IOptions, isRecoverableError } from "etcd3";
import type { ResolvedEtcdLockOptions } from "../options/etcd-lock-provider-options.js";
import { grpcDeadline } from "./grpc-deadline.js";
import { perAttemptDeadline } from "./per-attempt-deadline.js";

/**
 * How long the client stops sending to a member after three failed calls in a row, before it tries that member again.
 * etcd3's default pause, 5 s, outlasts a short session lease: its keep-alives sat out the pause while the cluster was
 * already back, and the holds were lost. A member that is really gone costs one failed call per pause.
 */
export const MEMBER_PAUSE_MS = 500;

/** The etcd3 client a provider creates (and closes) when the caller does not bring one; every unary call gets a deadline. */
export function createEtcdClient(options: ResolvedEtcdLockOptions): Etcd3 {
  const { tls, auth, requestTimeoutMs } = options;
  const config: IOptions = {
    hosts: [...options.hosts],
    dialTimeout: options.dialTimeoutMs,
    defaultCallOptions: (context) => (context.isStream ? {} : { deadline: grpcDeadline(requestTimeoutMs) }),
    faultHandling: {
      host: () => circuitBreaker(handleWhen(isRecoverableError), { halfOpenAfter: MEMBER_PAUSE_MS, breaker: new ConsecutiveBreaker(3) }),
    },
  };
  if (auth !== undefined) config.auth = { username: auth.username, password: auth.password, callOptions: perAttemptDeadline(requestTimeoutMs) };
  if (tls !== undefined) {
    config.credentials = {
      // grpc's createSsl takes null for "the system roots"; etcd3's type insists on a Buffer.
      rootCertificate: (tls.ca === undefined ? null : Buffer.from(tls.ca)) as Buffer,
      ...(tls.key === undefined ? {} : { privateKey: Buffer.from(tls.key) }),
      ...(tls.cert === undefined ? {} : { certChain: Buffer.from(tls.cert) }),
    };
  }
  return new Etcd3(config);
}
