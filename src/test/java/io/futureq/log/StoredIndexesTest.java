package io.futureq.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import io.futureq.log.proto.StoredMessage;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The ack path reads a stored record's index fields by hand: it must agree with protobuf's own parser. */
class StoredIndexesTest {

  @Test
  void readsWhatTheFullParserReadsWhateverTheRecordHolds() throws Exception {
    Random random = new Random(42);
    for (int i = 0; i < 2_000; i++) {
      StoredMessage.Builder m = StoredMessage.newBuilder().setTopic("topic-" + random.nextInt(5))
          .setPayload(ByteString.copyFrom(new byte[random.nextInt(300)])).setDueMs(random.nextLong())
          .setEnqueuedMs(random.nextLong()).setEventId(random.nextLong());
      if (random.nextBoolean()) {
        m.setKey("key-é-" + random.nextInt());
      }
      if (random.nextBoolean()) {
        m.setExpireMs(random.nextLong());
      }
      if (random.nextBoolean()) {
        Headers.addAll(Map.of("h" + random.nextInt(3), "v", "trace", "x"), m::addHeaders);
      }
      m.setNackDelayed(random.nextBoolean());
      byte[] bytes = m.build().toByteArray();

      assertEquals(StoredIndexes.of(StoredMessage.parseFrom(bytes)), StoredIndexes.read(bytes, new byte[24]));
    }
  }

  @Test
  void fieldsOfALaterVersionAreSkipped() {
    StoredMessage m = StoredMessage.newBuilder().setTopic("orders").setKey("k").setEventId(7)
        .setUnknownFields(UnknownFieldSet.newBuilder()
            .addField(99, UnknownFieldSet.Field.newBuilder().addLengthDelimited(ByteString.copyFromUtf8("new")).build())
            .build())
        .build();

    assertEquals(new StoredIndexes("orders", "k", 0, 7, false), StoredIndexes.read(m.toByteArray(), new byte[24]));
  }

  @Test
  void aTruncatedRecordIsReportedAsCorrupt() {
    byte[] bytes = StoredMessage.newBuilder().setTopic("orders").setPayload(ByteString.copyFrom(new byte[50])).build()
        .toByteArray();

    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> StoredIndexes.read(Arrays.copyOf(bytes, bytes.length - 10), new byte[24]));
    assertEquals(true, e.getMessage().startsWith("corrupt message record"));
  }
}
