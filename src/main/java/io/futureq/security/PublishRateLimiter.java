package io.futureq.security;

import io.futureq.config.AuthSettings;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Publish rate per principal: two token buckets (messages, bytes), each holding at most one second's worth and
 * refilled continuously. A request takes from both or from neither, so a refused request costs nothing and nothing
 * of it is stored. A principal's limit is its access file {@code limit} line, else the configured default.
 */
public final class PublishRateLimiter {
  private final AccessFile.RateLimit defaults;
  private final Authenticator authenticator;
  private final LongSupplier nanoClock;
  private final Map<String, Buckets> buckets = new ConcurrentHashMap<>();

  /** @param authenticator where per-principal limits come from; null when authentication is off */
  public PublishRateLimiter(AuthSettings settings, Authenticator authenticator) {
    this(settings, authenticator, System::nanoTime);
  }

  PublishRateLimiter(AuthSettings settings, Authenticator authenticator, LongSupplier nanoClock) {
    this.defaults = new AccessFile.RateLimit(settings.messagesPerSecond(), settings.bytesPerSecond());
    this.authenticator = authenticator;
    this.nanoClock = nanoClock;
  }

  /** @throws RateLimited saying which limit, if {@code principal} may not publish this much now */
  public void admit(Principal principal, long messages, long bytes) {
    admit(principal, messages, () -> bytes);
  }

  /**
   * As {@link #admit(Principal, long, long)}, asking {@code bytes} only when a byte limit applies: the size of a
   * request is a walk over all its messages the first time.
   */
  public void admit(Principal principal, long messages, LongSupplier bytes) {
    AccessFile.RateLimit own = authenticator == null ? null : authenticator.limitOf(principal.name());
    AccessFile.RateLimit limit = own != null ? own : defaults;
    if (limit.messagesPerSecond() == 0 && limit.bytesPerSecond() == 0) {
      return;
    }
    Buckets b = buckets.compute(principal.name(), (name, old) -> old != null && old.limit.equals(limit) ? old
        : new Buckets(limit, nanoClock.getAsLong()));
    b.take(principal.name(), messages, limit.bytesPerSecond() == 0 ? 0 : bytes.getAsLong(), nanoClock.getAsLong());
  }

  private static final class Buckets {
    final AccessFile.RateLimit limit;
    private double messageTokens;
    private double byteTokens;
    private long last;

    Buckets(AccessFile.RateLimit limit, long now) {
      this.limit = limit;
      this.messageTokens = limit.messagesPerSecond();
      this.byteTokens = limit.bytesPerSecond();
      this.last = now;
    }

    synchronized void take(String principal, long messages, long bytes, long now) {
      double seconds = Math.max(0, now - last) / 1e9;
      last = Math.max(last, now);
      messageTokens = Math.min(limit.messagesPerSecond(), messageTokens + seconds * limit.messagesPerSecond());
      byteTokens = Math.min(limit.bytesPerSecond(), byteTokens + seconds * limit.bytesPerSecond());
      check(principal, "messages", messages, messageTokens, limit.messagesPerSecond());
      check(principal, "bytes", bytes, byteTokens, limit.bytesPerSecond());
      if (limit.messagesPerSecond() > 0) {
        messageTokens -= messages;
      }
      if (limit.bytesPerSecond() > 0) {
        byteTokens -= bytes;
      }
    }

    private static void check(String principal, String unit, long wanted, double available, long perSecond) {
      if (perSecond == 0 || wanted <= available) {
        return;
      }
      if (wanted > perSecond) {
        throw new RateLimited("publish rate limit of principal '" + principal + "' is " + perSecond + " " + unit
            + "/s, and this request alone has " + wanted + " " + unit + ": send smaller requests");
      }
      throw new RateLimited("publish rate limit of principal '" + principal + "' exceeded: " + perSecond + " "
          + unit + "/s; nothing of this request was stored, retry later");
    }
  }
}
