import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;

/**
 * The Curator side of the interop test: takes an InterProcessMutex on one path `rounds` times (or, with `permits` > 0,
 * one lease of an InterProcessSemaphoreV2 of that many leases), and while holding it appends "curator <start> <end>" to
 * the witness file, both times from System.nanoTime() (CLOCK_MONOTONIC on Linux, the clock Node's process.hrtime
 * reads). A first hold, before the barrier, is not witnessed. Prints "ready" once connected and "done <rounds>" at the end.
 *
 * Usage: CuratorLoop <connectString> <path> <witnessFile> <rounds> <holdMs> [permits]
 */
public final class CuratorLoop {
  public static void main(String[] args) throws Exception {
    InteropSide.Run run = InteropSide.Run.of(args);
    int permits = args.length > 5 ? Integer.parseInt(args[5]) : 0;
    try (CuratorFramework client = InteropSide.connect(run.connectString())) {
      InterProcessMutex mutex = permits > 0 ? null : new InterProcessMutex(client, run.path());
      InterProcessSemaphoreV2 semaphore = permits > 0 ? new InterProcessSemaphoreV2(client, run.path(), permits) : null;
      // One hold before the barrier, not witnessed: a cold JVM's first acquire (class loading, interpreted code) can take
      // long enough under load that the other sides finish their loops before this one starts its own.
      for (int round = -1; round < run.rounds(); round++) {
        if (round == 0) InteropSide.awaitEveryone();
        Lease lease = null;
        if (mutex != null && !mutex.acquire(60, TimeUnit.SECONDS)) throw new IllegalStateException("no lock within 60 s");
        if (semaphore != null && (lease = semaphore.acquire(60, TimeUnit.SECONDS)) == null) throw new IllegalStateException("no lease within 60 s");
        try {
          long start = System.nanoTime();
          Thread.sleep(run.holdMs());
          long end = System.nanoTime();
          if (round >= 0) InteropSide.witness(run.witness(), start, end);
        } finally {
          if (mutex != null) mutex.release();
          if (semaphore != null) semaphore.returnLease(lease);
        }
      }
      System.out.println("done " + run.rounds());
    }
  }
}
