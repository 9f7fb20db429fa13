/** The kinds of server this package can start. */
export type ServerKind = "redis" | "etcd" | "postgres" | "mariadb" | "pgbouncer" | "nats" | "zookeeper" | "curator" | "bindfs";

/** Every server kind, in the order the prepare script reports them. */
export const SERVER_KINDS: readonly ServerKind[] = Object.freeze([
  "redis",
  "etcd",
  "postgres",
  "mariadb",
  "pgbouncer",
  "nats",
  "zookeeper",
  "curator",
  "bindfs",
]);

/** One binary a kind needs: its canonical name and the other names it may be installed under. */
export interface BinarySpec {
  readonly name: string;
  readonly alternatives: readonly string[];
}

/** What each kind needs and which Debian packages provide it. */
export interface KindRequirements {
  readonly binaries: readonly BinarySpec[];
  /** Absolute paths of other files the kind needs (Java jars), keyed in the resolved binaries by their path. */
  readonly files?: readonly string[];
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
  // ZooKeeper runs from Debian's jar (its Class-Path manifest names the dependencies); slf4j-simple gives it a log.
  zookeeper: {
    binaries: [binary("java")],
    files: ["/usr/share/java/zookeeper.jar", "/usr/share/java/slf4j-simple.jar"],
    debianPackages: ["zookeeper", "libslf4j-java"],
  },
  // Curator's recipes for the interop test, compiled against with javac.
  curator: {
    binaries: [binary("java"), binary("javac")],
    files: ["/usr/share/java/curator-recipes.jar", "/usr/share/java/curator-framework.jar", "/usr/share/java/curator-client.jar"],
    debianPackages: ["libcurator-recipes-java", "default-jdk-headless"],
  },
  // A FUSE filesystem (a directory mirrored through bindfs), for tests of what runs on one.
  bindfs: { binaries: [binary("bindfs"), binary("fusermount", "fusermount3")], debianPackages: ["bindfs"] },
  nats: { binaries: [binary("nats-server"), binary("openssl")], debianPackages: ["nats-server", "openssl"] },
});
