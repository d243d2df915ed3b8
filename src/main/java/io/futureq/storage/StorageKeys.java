package io.futureq.storage;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The byte layouts of every stored key. Message keys are {@code topicHash(8) | dueBucket(8) |
 * eventId(8)}, big-endian, so one range scan walks a topic in due order, ties in event-id order.
 * Index keys carry the topic name itself (its alphabet excludes the 0x00 separator), so hash
 * collisions can never mix two topics' secondary keys.
 */
public final class StorageKeys {
  public static final int MESSAGE_KEY_LENGTH = 24;
  private static final byte SEPARATOR = 0;
  private static final byte TOPIC_META = 't';
  private static final byte GROUP = 'g';
  private static final byte MESSAGE_KEY = 'k';
  private static final byte EXPIRY = 'x';
  private static final byte ACK_MARK = 'a';
  private static final byte NACK_MARK = 'n';
  private static final byte JOURNAL_EVENT = 'J';
  private static final byte JOURNAL_HIGHEST = 'H';
  private static final byte JOURNAL_DELETED_TO = 'D';

  private StorageKeys() {}

  /** A stable 64-bit hash of a topic name (FNV-1a), part of every message key. */
  public static long topicHash(String topic) {
    long hash = 0xcbf29ce484222325L;
    for (byte b : topic.getBytes(StandardCharsets.UTF_8)) {
      hash ^= (b & 0xff);
      hash *= 0x100000001b3L;
    }
    return hash;
  }

  public static byte[] message(long topicHash, long dueBucket, long eventId) {
    return ByteBuffer.allocate(MESSAGE_KEY_LENGTH).putLong(topicHash).putLong(dueBucket).putLong(eventId).array();
  }

  public static long topicHashOf(byte[] messageKey) {
    return ByteBuffer.wrap(messageKey).getLong(0);
  }

  public static long dueBucketOf(byte[] messageKey) {
    return ByteBuffer.wrap(messageKey).getLong(8);
  }

  public static long eventIdOf(byte[] messageKey) {
    return ByteBuffer.wrap(messageKey).getLong(16);
  }

  /** The first key of {@code topicHash} with a bucket >= {@code dueBucket}. */
  public static byte[] messageRangeStart(long topicHash, long dueBucket) {
    return message(topicHash, dueBucket, 0);
  }

  /** The key just past every message of the topic. */
  public static byte[] messageRangeEnd(long topicHash) {
    return topicHash == -1L ? null : message(topicHash + 1, 0, 0);
  }

  public static byte[] topicMeta(String topic) {
    return withTopic(TOPIC_META, topic, 0).array();
  }

  public static byte[] topicMetaPrefix() {
    return new byte[] {TOPIC_META};
  }

  public static byte[] group(String topic, String group) {
    byte[] name = utf8(group);
    return withTopic(GROUP, topic, name.length).put(name).array();
  }

  public static byte[] groupPrefix(String topic) {
    return withTopic(GROUP, topic, 0).array();
  }

  public static String groupNameOf(String topic, byte[] groupKey) {
    int offset = groupPrefix(topic).length;
    return new String(groupKey, offset, groupKey.length - offset, StandardCharsets.UTF_8);
  }

  public static byte[] messageKeyIndex(String topic, String key) {
    byte[] k = utf8(key);
    return withTopic(MESSAGE_KEY, topic, k.length).put(k).array();
  }

  public static byte[] expiry(String topic, long expireMs, long eventId) {
    return withTopic(EXPIRY, topic, 16).putLong(expireMs).putLong(eventId).array();
  }

  public static byte[] expiryPrefix(String topic) {
    return withTopic(EXPIRY, topic, 0).array();
  }

  public static long expireMsOf(String topic, byte[] expiryKey) {
    return ByteBuffer.wrap(expiryKey).getLong(expiryPrefix(topic).length);
  }

  /** Marks that {@code group} acked the message; event ids are global, so the message key is unique. */
  public static byte[] ackMark(byte[] messageKey, String group) {
    byte[] g = utf8(group);
    return ByteBuffer.allocate(1 + MESSAGE_KEY_LENGTH + g.length).put(ACK_MARK).put(messageKey).put(g).array();
  }

  public static byte[] ackMarkPrefix(byte[] messageKey) {
    return ByteBuffer.allocate(1 + MESSAGE_KEY_LENGTH).put(ACK_MARK).put(messageKey).array();
  }

  /** The prefix of every ack mark of the messages under {@code topicHash} (other topics of that hash too). */
  public static byte[] ackMarkTopicPrefix(long topicHash) {
    return ByteBuffer.allocate(1 + 8).put(ACK_MARK).putLong(topicHash).array();
  }

  public static byte[] messageKeyOfAckMark(byte[] ackMark) {
    return Arrays.copyOfRange(ackMark, 1, 1 + MESSAGE_KEY_LENGTH);
  }

  public static String groupOfAckMark(byte[] ackMark) {
    return new String(ackMark, 1 + MESSAGE_KEY_LENGTH, ackMark.length - 1 - MESSAGE_KEY_LENGTH,
        StandardCharsets.UTF_8);
  }

  /**
   * Marks that {@code group} nacked the message with a delay; its value says until when (see
   * {@code NackDelays}). Under the message key, so removing the message finds them by prefix.
   */
  public static byte[] nackMark(byte[] messageKey, String group) {
    byte[] g = utf8(group);
    return ByteBuffer.allocate(1 + MESSAGE_KEY_LENGTH + g.length).put(NACK_MARK).put(messageKey).put(g).array();
  }

  public static byte[] nackMarkPrefix(byte[] messageKey) {
    return ByteBuffer.allocate(1 + MESSAGE_KEY_LENGTH).put(NACK_MARK).put(messageKey).array();
  }

  /** Every nack mark of a topic's messages starts with this (the message key starts with the topic hash). */
  public static byte[] nackMarkTopicPrefix(long topicHash) {
    return ByteBuffer.allocate(1 + 8).put(NACK_MARK).putLong(topicHash).array();
  }

  public static String groupOfNackMark(byte[] nackMark) {
    return groupOfAckMark(nackMark); // the same layout under another tag
  }

  /**
   * A Pekko Persistence event: {@code 'J' | persistenceId | 0x00 | sequenceNr(8)}, so one persistence id's events
   * sort by sequence number (which is never negative). The journal refuses persistence ids containing 0x00.
   */
  public static byte[] journalEvent(String persistenceId, long sequenceNr) {
    return withTopic(JOURNAL_EVENT, persistenceId, 8).putLong(sequenceNr).array();
  }

  public static byte[] journalEventPrefix(String persistenceId) {
    return withTopic(JOURNAL_EVENT, persistenceId, 0).array();
  }

  public static long sequenceNrOf(byte[] journalEventKey) {
    return ByteBuffer.wrap(journalEventKey).getLong(journalEventKey.length - 8);
  }

  /** The highest sequence number ever written for a persistence id (deletes keep it). */
  public static byte[] journalHighest(String persistenceId) {
    return withTopic(JOURNAL_HIGHEST, persistenceId, 0).array();
  }

  /** The sequence number up to which a persistence id's events were deleted. */
  public static byte[] journalDeletedTo(String persistenceId) {
    return withTopic(JOURNAL_DELETED_TO, persistenceId, 0).array();
  }

  /** The smallest key greater than every key starting with {@code prefix}, or null if none exists. */
  public static byte[] prefixEnd(byte[] prefix) {
    byte[] end = prefix.clone();
    for (int i = end.length - 1; i >= 0; i--) {
      if (end[i] != (byte) 0xff) {
        end[i]++;
        return Arrays.copyOf(end, i + 1);
      }
    }
    return null;
  }

  private static ByteBuffer withTopic(byte kind, String topic, int extra) {
    byte[] t = utf8(topic);
    return ByteBuffer.allocate(1 + t.length + 1 + extra).put(kind).put(t).put(SEPARATOR);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
