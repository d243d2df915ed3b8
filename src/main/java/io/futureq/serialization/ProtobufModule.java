package io.futureq.serialization;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializationConfig;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleDeserializers;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.module.SimpleSerializers;
import com.google.protobuf.Message;
import java.io.IOException;
import java.lang.reflect.Method;

/**
 * Lets Jackson carry protobuf messages (stored messages, deliveries) inside CBOR-serialized
 * actor messages: a field of a concrete protobuf type is written as its binary encoding.
 */
public final class ProtobufModule extends SimpleModule {

  public ProtobufModule() {
    super("futureq-protobuf");
    setSerializers(new SimpleSerializers() {
      @Override
      public JsonSerializer<?> findSerializer(SerializationConfig config, JavaType type, BeanDescription description) {
        return Message.class.isAssignableFrom(type.getRawClass()) ? new ProtoSerializer() : null;
      }
    });
    setDeserializers(new SimpleDeserializers() {
      @Override
      public JsonDeserializer<?> findBeanDeserializer(JavaType type, DeserializationConfig config,
          BeanDescription description) {
        return Message.class.isAssignableFrom(type.getRawClass()) ? new ProtoDeserializer(type.getRawClass()) : null;
      }
    });
  }

  private static final class ProtoSerializer extends JsonSerializer<Message> {
    @Override
    public void serialize(Message value, JsonGenerator gen, SerializerProvider serializers) throws IOException {
      gen.writeBinary(value.toByteArray());
    }
  }

  private static final class ProtoDeserializer extends JsonDeserializer<Message> {
    private final Method parseFrom;

    ProtoDeserializer(Class<?> type) {
      try {
        this.parseFrom = type.getMethod("parseFrom", byte[].class);
      } catch (NoSuchMethodException e) {
        throw new IllegalArgumentException("not a generated protobuf message: " + type, e);
      }
    }

    @Override
    public Message deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      try {
        return (Message) parseFrom.invoke(null, (Object) p.getBinaryValue());
      } catch (ReflectiveOperationException e) {
        throw new IOException("cannot decode " + parseFrom.getDeclaringClass().getSimpleName(), e);
      }
    }
  }
}
