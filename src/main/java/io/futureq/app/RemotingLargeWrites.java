package io.futureq.app;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.futureq.api.ShardCalls;
import io.futureq.config.RaftSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Clustered, every write crosses remoting to the write leader as one message of up to a Raft entry
 * ({@code futureq.raft.max-entry-size}), and its answer comes back with an id per message. Artery's ordinary lanes
 * carry at most 256 KiB a message, so the routers and the leaders get the large-message lane, with frames as large
 * as an entry. Its buffers are allocated at that size when used and a few are kept for reuse.
 */
final class RemotingLargeWrites {
  /** Room for the remoting envelope and the answer's ids beyond the entry itself. */
  static final long FRAME_OVERHEAD_BYTES = 1024 * 1024;
  static final int KEPT_BUFFERS = 4;

  private RemotingLargeWrites() {}

  /** @param logShards each shard has a router and a placement of its own */
  static Config overlay(RaftSettings raft, int logShards) {
    if (raft == null) {
      return ConfigFactory.empty();
    }
    List<String> destinations = new ArrayList<>();
    // A request relayed to a node holding its topic's shard, and its answer (ShardCalls).
    destinations.add("/user/" + ShardCalls.NAME);
    destinations.add("/user/" + ShardCalls.NAME + "/*");
    for (int shard = 0; shard < logShards; shard++) {
      destinations.add("/user/" + WritePath.routerName(shard) + "/*");
      destinations.add("/user/" + WritePath.placementName(shard) + "/*");
    }
    return ConfigFactory.parseMap(Map.of(
        "pekko.remote.artery.large-message-destinations", destinations,
        "pekko.remote.artery.advanced.maximum-large-frame-size", raft.maxEntryBytes() + FRAME_OVERHEAD_BYTES,
        "pekko.remote.artery.advanced.large-buffer-pool-size", KEPT_BUFFERS));
  }
}
