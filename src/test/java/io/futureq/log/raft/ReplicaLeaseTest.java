package io.futureq.log.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The lease on a manual clock, with the contact Ratis would report set by hand and the checks run by
 * the test: what a host's groups see when they ask whether they may deliver.
 */
class ReplicaLeaseTest {
  private static final Duration LEASE = Duration.ofSeconds(1);

  private final AtomicLong nanos = new AtomicLong(TimeUnit.SECONDS.toNanos(1000));
  private final AtomicLong sinceContactMs = new AtomicLong(0);
  private final List<CompletableFuture<Object>> barriers = new ArrayList<>();
  private final ReplicaLease lease = new ReplicaLease(sinceContactMs::get, LEASE, this::barrier, nanos::get, null);

  private CompletableFuture<Object> barrier() {
    CompletableFuture<Object> barrier = new CompletableFuture<>();
    barriers.add(barrier);
    return barrier;
  }

  private void advance(long ms) {
    nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
  }

  /** Checks every 50 ms for {@code ms}, with a contact {@code sinceMs} old at each. */
  private void runChecks(long ms, long sinceMs) {
    for (long t = 0; t < ms; t += ReplicaLease.CHECK_EVERY.toMillis()) {
      sinceContactMs.set(sinceMs);
      lease.check();
      advance(ReplicaLease.CHECK_EVERY.toMillis());
    }
  }

  @Test
  void aReplicaInTouchStaysCurrent() {
    runChecks(10_000, 450);
    assertTrue(lease.current());
    assertEquals(0, barriers.size());
  }

  @Test
  void aSilenceLongerThanTheLeaseLapsesUntilABarrierIsApplied() {
    runChecks(500, 100);
    runChecks(1_500, 1_200);
    assertFalse(lease.current());

    runChecks(200, 20);
    assertEquals(1, barriers.size(), "in touch again, it appends one barrier");
    assertFalse(lease.current(), "not current before the barrier is applied");
    barriers.get(0).complete(1L);
    runChecks(100, 20);
    assertTrue(lease.current());
  }

  @Test
  void aProcessFrozenPastItsLeaseIsNotCurrentBeforeAnyCheckHasRun() {
    runChecks(500, 100);
    assertTrue(lease.current());

    // SIGSTOP for 3 s: no check runs. On SIGCONT a group's timer asks first.
    advance(3_000);
    assertFalse(lease.current(), "its replica may be missing 3 s of commits");
  }

  @Test
  void aFreezeTheChecksDidNotSeeIsALapseEvenIfContactIsFreshOnResume() {
    runChecks(500, 100);
    advance(3_000);
    // The leader's queued heartbeats arrive within milliseconds of the resume.
    runChecks(100, 5);
    assertFalse(lease.current(), "contact now says nothing of what was committed during the freeze");
    assertEquals(1, barriers.size());
    barriers.get(0).complete(1L);
    runChecks(100, 5);
    assertTrue(lease.current());
  }

  @Test
  void aCheckRunningLateWithinTheLeaseKeepsItCurrent() {
    runChecks(500, 100);
    // The check thread starved for 600 ms on a loaded machine: contact was 100 ms old at the last
    // check, so the lease still has 300 ms left.
    advance(600);
    assertTrue(lease.current());
    runChecks(100, 50);
    assertTrue(lease.current());
    assertEquals(0, barriers.size());
  }
}
