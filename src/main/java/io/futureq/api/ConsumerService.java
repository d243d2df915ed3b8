package io.futureq.api;

import io.futureq.api.grpc.ConsumerFrame;
import io.futureq.api.grpc.ConsumerPowerApi;
import io.futureq.api.grpc.DeliveryFrame;
import io.futureq.config.ApiSettings;
import io.futureq.config.GroupSettings;
import io.futureq.config.TopicSettings;
import io.futureq.group.GroupDirectory;
import io.futureq.group.SubscriberSession;
import io.futureq.security.NotAuthenticated;
import io.futureq.security.PermissionDenied;
import io.futureq.security.Principal;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.SpawnProtocol;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.grpc.GrpcServiceException;
import org.apache.pekko.grpc.javadsl.Metadata;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.OverflowStrategy;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.typed.javadsl.ActorSink;
import org.apache.pekko.stream.typed.javadsl.ActorSource;

/**
 * Consumer API: checks the init frame, then hands the stream to a {@link SubscriberSession} actor
 * that joins the group and relays deliveries, acks and nacks.
 */
public final class ConsumerService implements ConsumerPowerApi {
  private final ActorSystem<?> system;
  private final ActorRef<SpawnProtocol.Command> sessions;
  private final ApiSettings settings;
  private final GroupSettings groupSettings;
  private final TopicSettings topicSettings;
  private final RequestValidator validator;
  private final GroupDirectory directory;
  private final ConsumerFrames frames;
  private final CallAccess access;

  /**
   * @param sessions the guardian that spawns (and owns) one {@link SubscriberSession} per stream
   */
  public ConsumerService(ActorSystem<?> system, ActorRef<SpawnProtocol.Command> sessions, ApiSettings settings,
      GroupSettings groupSettings, TopicSettings topicSettings, GroupDirectory directory, CallAccess access) {
    this.system = system;
    this.access = access;
    this.sessions = sessions;
    this.settings = settings;
    this.groupSettings = groupSettings;
    this.topicSettings = topicSettings;
    this.validator = new RequestValidator(settings);
    this.directory = directory;
    this.frames = new ConsumerFrames(groupSettings.maxRequeueDelay(), System::currentTimeMillis);
  }

  @Override
  public Source<DeliveryFrame, NotUsed> subscribe(Source<ConsumerFrame, NotUsed> in, Metadata metadata) {
    Principal principal;
    try {
      principal = access.principal(metadata);
    } catch (NotAuthenticated e) {
      return Source.failed(GrpcErrors.toException(e));
    }
    return in.prefixAndTail(1).flatMapConcat(pair -> {
      if (pair.first().isEmpty()) {
        return Source.<DeliveryFrame>empty();
      }
      ConsumerFrame first = pair.first().get(0);
      SubscriberSession.Init init;
      try {
        init = init(first);
        // The dead-letter topic T.dead-letter needs consume on T (TopicPattern).
        principal.requireConsume(init.topic(), init.group());
      } catch (InvalidRequest | PermissionDenied e) {
        return Source.<DeliveryFrame>failed(GrpcErrors.toException(e));
      }
      return session(init, pair.second());
    }).mapMaterializedValue(m -> NotUsed.getInstance());
  }

  private SubscriberSession.Init init(ConsumerFrame first) {
    if (first.getFrameCase() != ConsumerFrame.FrameCase.INIT) {
      throw InvalidRequest.invalid("frame: the first frame must be an init, got " + first.getFrameCase());
    }
    int maxInFlight = validator.subscribe(first.getInit());
    long maxInFlightBytes = validator.subscribeBytes(first.getInit());
    return new SubscriberSession.Init(first.getInit().getTopic(), first.getInit().getGroup(), maxInFlight,
        maxInFlightBytes, topicSettings.retryBackoff());
  }

  private Source<DeliveryFrame, NotUsed> session(SubscriberSession.Init init, Source<ConsumerFrame, NotUsed> rest) {
    // Credit bounds what a session holds: at most max-in-flight deliveries (so at most as many
    // outputs) are outstanding, plus the subscribed frame and the end.
    Pair<ActorRef<SubscriberSession.Output>, Source<SubscriberSession.Output, NotUsed>> out =
        ActorSource.<SubscriberSession.Output>actorRef(o -> o instanceof SubscriberSession.Close,
            o -> o instanceof SubscriberSession.Fail f
                ? Optional.of(new GrpcServiceException(ConsumerFrames.status(f.refusal()))) : Optional.empty(),
            init.maxInFlight() + 16, OverflowStrategy.fail()).preMaterialize(system);
    // A session that throws is stopped (it then fails its stream with UNAVAILABLE): its state is
    // one stream's, and the client resubscribes.
    Behavior<SubscriberSession.Command> behavior = Behaviors.supervise(
        SubscriberSession.create(init, directory, out.first())).onFailure(SupervisorStrategy.stop());
    CompletionStage<ActorRef<SubscriberSession.Command>> spawned = AskPattern.ask(sessions,
        replyTo -> new SpawnProtocol.Spawn<>(behavior, "subscriber-" + UUID.randomUUID(), Props.empty(), replyTo),
        settings.requestTimeout(), system.scheduler());
    return Source.completionStage(spawned).flatMapConcat(session -> {
      rest.map(frames::command)
          .runWith(ActorSink.<SubscriberSession.Command>actorRef(session, new SubscriberSession.StreamEnded(),
              failure -> new SubscriberSession.StreamEnded()), system);
      return out.second()
          .watchTermination((mat, done) -> {
            done.whenComplete((d, f) -> session.tell(new SubscriberSession.StreamEnded()));
            return mat;
          })
          .mapConcat(frames::frames);
    });
  }
}
