package io.futureq.client;

import com.google.protobuf.Message;
import io.futureq.api.grpc.AddRaftPeerRequest;
import io.futureq.api.grpc.CancelRequest;
import io.futureq.api.grpc.CancelResponse;
import io.futureq.api.grpc.ClusterInfo;
import io.futureq.api.grpc.ConsumerFrame;
import io.futureq.api.grpc.DeliveryFrame;
import io.futureq.api.grpc.GetClusterInfoRequest;
import io.futureq.api.grpc.GetTopicStatsRequest;
import io.futureq.api.grpc.ListTopicsRequest;
import io.futureq.api.grpc.ListTopicsResponse;
import io.futureq.api.grpc.PublishRequest;
import io.futureq.api.grpc.PublishResponse;
import io.futureq.api.grpc.RaftInfo;
import io.futureq.api.grpc.RemoveRaftPeerRequest;
import io.futureq.api.grpc.TopicStats;
import io.futureq.api.grpc.DeleteGroupRequest;
import io.futureq.api.grpc.DeleteGroupResponse;
import io.futureq.api.grpc.DeleteTopicRequest;
import io.futureq.api.grpc.DeleteTopicResponse;
import io.futureq.api.grpc.GetMessageRequest;
import io.futureq.api.grpc.ListMessagesRequest;
import io.futureq.api.grpc.ListMessagesResponse;
import io.futureq.api.grpc.PendingMessage;
import io.futureq.api.grpc.PurgeTopicRequest;
import io.futureq.api.grpc.PurgeTopicResponse;
import io.futureq.api.grpc.RescheduleMessageRequest;
import io.futureq.api.grpc.RescheduleMessageResponse;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.protobuf.ProtoUtils;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The FutureQ methods as plain grpc-java descriptors (from the protos in src/main/protobuf), and
 * unary calls as futures. No generated stubs: a client needs only grpc-java and protobuf.
 */
final class Rpc {
  private Rpc() {}

  static final MethodDescriptor<PublishRequest, PublishResponse> PUBLISH_STREAM =
      method("futureq.v1.Producer", "PublishStream", MethodDescriptor.MethodType.BIDI_STREAMING,
          PublishRequest.getDefaultInstance(), PublishResponse.getDefaultInstance());
  static final MethodDescriptor<CancelRequest, CancelResponse> CANCEL =
      unaryMethod("futureq.v1.Producer", "Cancel", CancelRequest.getDefaultInstance(),
          CancelResponse.getDefaultInstance());
  static final MethodDescriptor<ConsumerFrame, DeliveryFrame> SUBSCRIBE =
      method("futureq.v1.Consumer", "Subscribe", MethodDescriptor.MethodType.BIDI_STREAMING,
          ConsumerFrame.getDefaultInstance(), DeliveryFrame.getDefaultInstance());
  static final MethodDescriptor<ListTopicsRequest, ListTopicsResponse> LIST_TOPICS =
      unaryMethod("futureq.v1.Admin", "ListTopics", ListTopicsRequest.getDefaultInstance(),
          ListTopicsResponse.getDefaultInstance());
  static final MethodDescriptor<GetTopicStatsRequest, TopicStats> TOPIC_STATS =
      unaryMethod("futureq.v1.Admin", "GetTopicStats", GetTopicStatsRequest.getDefaultInstance(),
          TopicStats.getDefaultInstance());
  static final MethodDescriptor<GetClusterInfoRequest, ClusterInfo> CLUSTER_INFO =
      unaryMethod("futureq.v1.Admin", "GetClusterInfo", GetClusterInfoRequest.getDefaultInstance(),
          ClusterInfo.getDefaultInstance());
  static final MethodDescriptor<ListMessagesRequest, ListMessagesResponse> LIST_MESSAGES =
      unaryMethod("futureq.v1.Admin", "ListMessages", ListMessagesRequest.getDefaultInstance(),
          ListMessagesResponse.getDefaultInstance());
  static final MethodDescriptor<GetMessageRequest, PendingMessage> GET_MESSAGE =
      unaryMethod("futureq.v1.Admin", "GetMessage", GetMessageRequest.getDefaultInstance(),
          PendingMessage.getDefaultInstance());
  static final MethodDescriptor<RescheduleMessageRequest, RescheduleMessageResponse> RESCHEDULE_MESSAGE =
      unaryMethod("futureq.v1.Admin", "RescheduleMessage", RescheduleMessageRequest.getDefaultInstance(),
          RescheduleMessageResponse.getDefaultInstance());
  static final MethodDescriptor<DeleteGroupRequest, DeleteGroupResponse> DELETE_GROUP =
      unaryMethod("futureq.v1.Admin", "DeleteGroup", DeleteGroupRequest.getDefaultInstance(),
          DeleteGroupResponse.getDefaultInstance());
  static final MethodDescriptor<PurgeTopicRequest, PurgeTopicResponse> PURGE_TOPIC =
      unaryMethod("futureq.v1.Admin", "PurgeTopic", PurgeTopicRequest.getDefaultInstance(),
          PurgeTopicResponse.getDefaultInstance());
  static final MethodDescriptor<DeleteTopicRequest, DeleteTopicResponse> DELETE_TOPIC =
      unaryMethod("futureq.v1.Admin", "DeleteTopic", DeleteTopicRequest.getDefaultInstance(),
          DeleteTopicResponse.getDefaultInstance());
  static final MethodDescriptor<AddRaftPeerRequest, RaftInfo> ADD_RAFT_PEER =
      unaryMethod("futureq.v1.Admin", "AddRaftPeer", AddRaftPeerRequest.getDefaultInstance(),
          RaftInfo.getDefaultInstance());
  static final MethodDescriptor<RemoveRaftPeerRequest, RaftInfo> REMOVE_RAFT_PEER =
      unaryMethod("futureq.v1.Admin", "RemoveRaftPeer", RemoveRaftPeerRequest.getDefaultInstance(),
          RaftInfo.getDefaultInstance());

  /** One request, one response, failing with a {@link FutureQException} (also past {@code timeout}). */
  static <Q, R> CompletableFuture<R> unary(Channel channel, MethodDescriptor<Q, R> method, Q request,
      Duration timeout) {
    CompletableFuture<R> result = new CompletableFuture<>();
    ClientCall<Q, R> call = channel.newCall(method,
        CallOptions.DEFAULT.withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS));
    call.start(new ClientCall.Listener<>() {
      private R response;

      @Override
      public void onMessage(R message) {
        response = message;
      }

      @Override
      public void onClose(Status status, Metadata trailers) {
        if (!status.isOk()) {
          result.completeExceptionally(FutureQException.from(status));
        } else if (response == null) {
          result.completeExceptionally(FutureQException.of(Status.Code.INTERNAL, method.getFullMethodName()
              + " ended without a response"));
        } else {
          result.complete(response);
        }
      }
    }, new Metadata());
    call.request(2);
    call.sendMessage(request);
    call.halfClose();
    return result;
  }

  private static <Q extends Message, R extends Message> MethodDescriptor<Q, R> unaryMethod(String service,
      String name, Q request, R response) {
    return method(service, name, MethodDescriptor.MethodType.UNARY, request, response);
  }

  private static <Q extends Message, R extends Message> MethodDescriptor<Q, R> method(String service, String name,
      MethodDescriptor.MethodType type, Q request, R response) {
    return MethodDescriptor.<Q, R>newBuilder().setType(type)
        .setFullMethodName(MethodDescriptor.generateFullMethodName(service, name))
        .setRequestMarshaller(ProtoUtils.marshaller(request)).setResponseMarshaller(ProtoUtils.marshaller(response))
        .build();
  }
}
