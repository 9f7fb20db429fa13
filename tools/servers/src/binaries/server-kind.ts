/** The kinds of server this package can start. */
export type ServerKind = "redis" | "etcd" | "postgres" | "mariadb" | "pgbouncer" | "nats";

/** Every server kind, in the order the prepare script reports them. */
export const SERVER_KINDS: readonly ServerKind[] = Object.freeze(["redis", "etcd", "postgres", "mariadb", "pgbouncer", "nats"]);

/** One binary a kind needs: its canonical name and the other names it may be installed under. */
export interface BinarySpec {
  readonly name: string;
  readonly alternatives: readonly string[];
}

/** What each kind needs and which Debian packages provide it. */
export interface KindRequirements {
  readonly binaries: readonly BinarySpec[];
  readonly debianPackages: readonly string[];
}

const binary = (name: string, ...alternatives: string[]): BinarySpec => ({ name, alternatives });

export const KIND_REQUIREMENTS: Readonly<Record<ServerKind, KindRequirements>> = Object.freeze({
  redis: { binaries: [binary("redis-server"), binary("redis-cli")], debianPackages: ["redis-server"] },
  etcd: { binaries: [binary("etcd"), binary("etcdctl"), binary("openssl")], debianPackages: ["etcd-server", "etcd-client", "openssl"] },
  postgres: {
    binaries: [binary("postgres"), binary("initdb"), binary("psql")],
    debianPackages: ["postgresql"],
  },
  mariadb: {
    binaries: [binary("mariadbd", "mysqld"), binary("mariadb-install-db", "mysql_install_db"), binary("mariadb", "mysql")],
    debianPackages: ["mariadb-server"],
  },
  pgbouncer: { binaries: [binary("pgbouncer")], debianPackages: ["pgbouncer"] },
  nats: { binaries: [binary("nats-server"), binary("openssl")], debianPackages: ["nats-server", "openssl"] },
});
