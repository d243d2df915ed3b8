package io.futureq.topic;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * The topic entities running on this node, to which {@link AppliedAnnouncer} tells what the log applied straight,
 * not through sharding. In a cluster every replica applies every log entry, and each entity must hear of new
 * messages from the replica it reads, so announcements go only to entities hosted here.
 */
public final class LocalTopics {
  private final Map<String, ActorRef<TopicEntity.Command>> running = new ConcurrentHashMap<>();

  void started(String topic, ActorRef<TopicEntity.Command> entity) {
    running.put(topic, entity);
  }

  void stopped(String topic, ActorRef<TopicEntity.Command> entity) {
    running.remove(topic, entity);
  }

  Optional<ActorRef<TopicEntity.Command>> find(String topic) {
    return Optional.ofNullable(running.get(topic));
  }

  Collection<ActorRef<TopicEntity.Command>> all() {
    return List.copyOf(running.values());
  }

  /** Names of the topics hosted here. */
  public Set<String> names() {
    return Set.copyOf(running.keySet());
  }
}
