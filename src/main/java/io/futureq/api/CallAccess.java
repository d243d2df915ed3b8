package io.futureq.api;

import io.futureq.api.grpc.PublishRequest;
import io.futureq.config.AuthSettings;
import io.futureq.security.Authenticator;
import io.futureq.security.Permission;
import io.futureq.security.Principal;
import io.futureq.security.PublishRateLimiter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.pekko.grpc.javadsl.Metadata;

/**
 * Who is calling and whether it may: every Producer, Consumer and Admin RPC starts here.
 *
 * <p>Why in the services and not around the HTTP handler in {@link ApiServer}: what a call may do depends on what
 * it asks for (the topics of a publish batch, a subscription's topic), which only the service sees, so the service
 * needs the principal anyway. pekko-grpc's power APIs hand each RPC its metadata, so each RPC authenticates and
 * authorizes in one step, once, with no second place to keep in step. Health and reflection use the plain APIs and
 * stay open. {@code AuthE2ETest} calls every method of the three services without a token, so an RPC that forgets
 * this fails a test.
 */
public final class CallAccess {
  static final String AUTHORIZATION = "authorization";

  private final Authenticator authenticator;
  private final PublishRateLimiter rateLimiter;

  private CallAccess(Authenticator authenticator, PublishRateLimiter rateLimiter) {
    this.authenticator = authenticator;
    this.rateLimiter = rateLimiter;
  }

  /**
   * Reads the configured token files when authentication is on.
   *
   * @throws IllegalArgumentException naming a file (and line) that cannot be read
   */
  public static CallAccess of(AuthSettings settings) {
    Authenticator authenticator = settings.enabled() ? Authenticator.start(settings) : null;
    return new CallAccess(authenticator, new PublishRateLimiter(settings, authenticator));
  }

  /** The caller; {@link Principal#ANONYMOUS} when authentication is off. @throws NotAuthenticated */
  Principal principal(Metadata metadata) {
    if (authenticator == null) {
      return Principal.ANONYMOUS;
    }
    return authenticator.authenticate(metadata.getText(AUTHORIZATION).orElse(null));
  }

  /**
   * The caller of a console request, from its {@code Authorization} header's value (null when it has none);
   * {@link Principal#ANONYMOUS} when authentication is off. The console checks the same tokens as the API.
   *
   * @throws io.futureq.security.NotAuthenticated
   */
  public Principal principal(String authorization) {
    return authenticator == null ? Principal.ANONYMOUS : authenticator.authenticate(authorization);
  }

  public boolean authenticationOn() {
    return authenticator != null;
  }

  /**
   * Takes {@code request} from the principal's publish rate: its messages, and its serialized size as bytes.
   *
   * @throws io.futureq.security.RateLimited if {@code principal} may not publish this much now
   */
  void admitPublish(Principal principal, PublishRequest request) {
    rateLimiter.admit(principal, request.getMessagesCount(), request::getSerializedSize);
  }

  /** Runs {@code call} if the caller holds {@code permission} on {@code topic}; else fails it with the refusal. */
  <T> CompletionStage<T> unary(Metadata metadata, Permission permission, String topic,
      Supplier<CompletionStage<T>> call) {
    return unary(metadata, principal -> {
      principal.require(permission, topic);
      return call.get();
    });
  }

  /** Runs {@code call} for the authenticated caller; failing to authenticate, or {@code call} throwing, fails it. */
  <T> CompletionStage<T> unary(Metadata metadata, Function<Principal, CompletionStage<T>> call) {
    try {
      return call.apply(principal(metadata));
    } catch (RuntimeException e) {
      return GrpcErrors.translate(CompletableFuture.failedFuture(e));
    }
  }
}
