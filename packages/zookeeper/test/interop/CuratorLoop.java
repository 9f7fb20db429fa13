import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.retry.RetryNTimes;

/**
 * The Curator side of the interop test: takes an InterProcessMutex on one path `rounds` times (or, with `permits` > 0,
 * one lease of an InterProcessSemaphoreV2 of that many leases), and while holding it appends "curator <start> <end>" to
 * the witness file, both times from System.nanoTime() (CLOCK_MONOTONIC on Linux, the clock Node's process.hrtime
 * reads). Prints "ready" once connected and "done <rounds>" at the end.
 *
 * Usage: CuratorLoop <connectString> <path> <witnessFile> <rounds> <holdMs> [permits]
 */
public final class CuratorLoop {
  public static void main(String[] args) throws Exception {
    String connectString = args[0];
    String lockPath = args[1];
    Path witness = Path.of(args[2]);
    int rounds = Integer.parseInt(args[3]);
    long holdMs = Long.parseLong(args[4]);
    int permits = args.length > 5 ? Integer.parseInt(args[5]) : 0;
    try (CuratorFramework client = CuratorFrameworkFactory.newClient(connectString, 10_000, 5_000, new RetryNTimes(3, 100))) {
      client.start();
      if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) throw new IllegalStateException("no ZooKeeper connection");
      System.out.println("ready");
      System.out.flush();
      InterProcessMutex mutex = permits > 0 ? null : new InterProcessMutex(client, lockPath);
      InterProcessSemaphoreV2 semaphore = permits > 0 ? new InterProcessSemaphoreV2(client, lockPath, permits) : null;
      for (int round = 0; round < rounds; round++) {
        Lease lease = null;
        if (mutex != null && !mutex.acquire(60, TimeUnit.SECONDS)) throw new IllegalStateException("no lock within 60 s");
        if (semaphore != null && (lease = semaphore.acquire(60, TimeUnit.SECONDS)) == null) throw new IllegalStateException("no lease within 60 s");
        try {
          long start = System.nanoTime();
          Thread.sleep(holdMs);
          long end = System.nanoTime();
          String line = "curator " + start + " " + end + "\n";
          Files.write(witness, line.getBytes(StandardCharsets.US_ASCII), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } finally {
          if (mutex != null) mutex.release();
          if (semaphore != null) semaphore.returnLease(lease);
        }
      }
      System.out.println("done " + rounds);
    }
  }
}
