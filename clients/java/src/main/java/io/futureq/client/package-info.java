/**
 * The FutureQ Java client: {@link io.futureq.client.FutureQClient} connects to a broker or cluster and hands out
 * producers ({@link io.futureq.client.FutureQProducer}), consumers ({@link io.futureq.client.FutureQConsumer}) and
 * admin calls.
 *
 * <h2>Types</h2>
 * Publishing and consuming use this package's own types ({@link io.futureq.client.OutgoingMessage},
 * {@link io.futureq.client.SendResult}, {@link io.futureq.client.ReceivedMessage}). Admin calls (topics, stats,
 * browsing, reschedule, cancel, purge, delete, cluster) take and answer with the protobuf messages generated from the
 * public protos, package {@code io.futureq.api.grpc} (the repository's {@code src/main/protobuf/futureq/v1}, whose
 * comments document each field): they are the wire format's own fields, and a new field reaches the application
 * without a new wrapper. Their getters follow the protos' field names, e.g. {@code TopicStats.getPending()}.
 *
 * <h2>Failures</h2>
 * Every failed call or send completes with a {@link io.futureq.client.FutureQException}, whose
 * {@link io.futureq.client.FutureQException#code() code()} is the gRPC status code, as one of its subclasses where the
 * code has one: {@link io.futureq.client.BrokerUnavailableException}, {@link io.futureq.client.TimedOutException},
 * {@link io.futureq.client.InvalidRequestException}, {@link io.futureq.client.RejectedException},
 * {@link io.futureq.client.NotFoundException}, {@link io.futureq.client.PermissionDeniedException}.
 *
 * <h2>Tracing and metrics</h2>
 * {@link io.futureq.client.FutureQClient.Builder#intercept} adds grpc-java {@code ClientInterceptor}s to every call
 * and stream the client makes.
 */
package io.futureq.client;
