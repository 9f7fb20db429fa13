import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;

/**
 * The Curator side of the leader-election interop test: `terms` times, starts a LeaderLatch on one path, waits to lead
 * (at most `awaitSeconds`), leads for `holdMs` and appends "curator <start> <end>" to the witness file (System.nanoTime,
 * CLOCK_MONOTONIC on Linux, the clock Node's process.hrtime reads), then closes the latch, which gives leadership up.
 * Prints "ready" once connected and "done <terms>" at the end; exits non-zero if it did not lead in time.
 *
 * Usage: LatchLoop <connectString> <latchPath> <witnessFile> <terms> <holdMs> <awaitSeconds>
 */
public final class LatchLoop {
  public static void main(String[] args) throws Exception {
    InteropSide.Run run = InteropSide.Run.of(args);
    long awaitSeconds = Long.parseLong(args[5]);
    try (CuratorFramework client = InteropSide.connect(run.connectString())) {
      InteropSide.awaitEveryone();
      for (int term = 0; term < run.rounds(); term++) {
        try (LeaderLatch latch = new LeaderLatch(client, run.path(), "curator")) {
          latch.start();
          if (!latch.await(awaitSeconds, TimeUnit.SECONDS)) throw new IllegalStateException("did not lead within " + awaitSeconds + " s (term " + term + ")");
          long start = System.nanoTime();
          Thread.sleep(run.holdMs());
          long end = System.nanoTime();
          if (!latch.hasLeadership()) throw new IllegalStateException("lost leadership during term " + term);
          InteropSide.witness(run.witness(), start, end);
        }
      }
      System.out.println("done " + run.rounds());
    }
  }
}
