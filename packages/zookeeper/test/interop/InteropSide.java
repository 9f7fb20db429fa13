import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;

/** What the Java sides of the interop tests share: the Curator client, the "ready" line, the witness file. */
final class InteropSide {
  private InteropSide() {}

  /** The arguments every side starts with: {@code <connectString> <path> <witnessFile> <rounds> <holdMs>}, then its own. */
  record Run(String connectString, String path, Path witness, int rounds, long holdMs) {
    static Run of(String[] args) {
      return new Run(args[0], args[1], Path.of(args[2]), Integer.parseInt(args[3]), Long.parseLong(args[4]));
    }
  }

  /** A started client, connected (or an exception), after which "ready" is printed for the test to go on. */
  static CuratorFramework connect(String connectString) throws InterruptedException {
    CuratorFramework client = CuratorFrameworkFactory.newClient(connectString, 10_000, 5_000, new RetryNTimes(3, 100));
    client.start();
    if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
      client.close();
      throw new IllegalStateException("no ZooKeeper connection");
    }
    System.out.println("ready");
    System.out.flush();
    return client;
  }

  /**
   * With INTEROP_BARRIER set to "<file> <count>": adds a line to the file and waits until it holds `count` lines, one per
   * side of the run, so that no side starts its loop (and finishes it) before the others are connected.
   */
  static void awaitEveryone() throws IOException, InterruptedException {
    String barrier = System.getenv("INTEROP_BARRIER");
    if (barrier == null) return;
    int space = barrier.lastIndexOf(' ');
    Path file = Path.of(barrier.substring(0, space));
    int count = Integer.parseInt(barrier.substring(space + 1));
    Files.write(file, "curator\n".getBytes(StandardCharsets.US_ASCII), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (Files.readAllLines(file).size() < count) {
      if (System.nanoTime() > deadline) throw new IllegalStateException("the other sides never came to the barrier");
      Thread.sleep(2);
    }
  }

  /** Appends "curator <start> <end>" (System.nanoTime: CLOCK_MONOTONIC on Linux, the clock Node's process.hrtime reads). */
  static void witness(Path file, long start, long end) throws IOException {
    String line = "curator " + start + " " + end + "\n";
    Files.write(file, line.getBytes(StandardCharsets.US_ASCII), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }
}
