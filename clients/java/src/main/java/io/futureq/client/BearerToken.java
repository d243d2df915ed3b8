package io.futureq.client;

import io.grpc.CallCredentials;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * Sends {@code authorization: Bearer TOKEN} on every call, as call credentials. The supplier is asked on each call
 * (each stream start), so a refreshed JWT is used from the next call on; it runs on grpc-java's executor, not the
 * caller's thread. Over a plaintext connection anyone on the path can read the token: use TLS beyond loopback.
 */
final class BearerToken extends CallCredentials implements ClientInterceptor {
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final Supplier<String> token;

  BearerToken(Supplier<String> token) {
    this.token = token;
  }

  @Override
  public void applyRequestMetadata(RequestInfo info, Executor executor, MetadataApplier applier) {
    executor.execute(() -> {
      String value;
      try {
        value = token.get();
      } catch (RuntimeException e) {
        applier.fail(Status.UNAUTHENTICATED.withDescription("the token supplier failed: " + e).withCause(e));
        return;
      }
      if (value == null || value.isBlank()) {
        applier.fail(Status.UNAUTHENTICATED.withDescription("the token supplier returned no token"));
        return;
      }
      Metadata headers = new Metadata();
      headers.put(AUTHORIZATION, "Bearer " + value.trim());
      applier.apply(headers);
    });
  }

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    return next.newCall(method, options.withCallCredentials(this));
  }
}
