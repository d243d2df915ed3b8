package io.futureq.client;

import io.futureq.api.grpc.GetClusterInfoRequest;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client's cluster discovery: each round learns the cluster's members from one broker, the next round asks the next
 * broker. Until an answer names every reachable member's gRPC address, rounds come every {@link #RETRY}: a broker that
 * has just started may not know its peers' addresses yet, and a client that knew only its seed when the seed died
 * would have nowhere to go. Then every {@code interval}.
 */
final class Discovery implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(FutureQClient.class);
  /** How soon discovery asks again after a failed or incomplete answer. */
  static final Duration RETRY = Duration.ofSeconds(1);

  private final Brokers brokers;
  private final ScheduledExecutorService timer;
  private final Duration interval;
  private final Duration requestTimeout;

  Discovery(Brokers brokers, ScheduledExecutorService timer, Duration interval, Duration requestTimeout) {
    this.brokers = brokers;
    this.timer = timer;
    this.interval = interval;
    this.requestTimeout = requestTimeout;
  }

  @Override
  public void run() {
    Rpc.unary(brokers.nextChannel(), Rpc.CLUSTER_INFO, GetClusterInfoRequest.getDefaultInstance(), requestTimeout)
        .whenComplete((info, failure) -> {
          boolean complete = false;
          if (failure != null) {
            LOG.debug("cluster discovery: {}", failure.toString());
          } else {
            brokers.learn(info);
            complete = Brokers.namesEveryMember(info);
          }
          Duration next = complete || interval.compareTo(RETRY) < 0 ? interval : RETRY;
          try {
            timer.schedule(this, next.toMillis(), TimeUnit.MILLISECONDS);
          } catch (RejectedExecutionException closedMeanwhile) {
            // the client was closed
          }
        });
  }
}
