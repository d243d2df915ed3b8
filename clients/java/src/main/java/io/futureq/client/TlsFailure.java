package io.futureq.client;

/**
 * Says in one line why a connection failed when TLS was the reason: gRPC reports all of these as "UNAVAILABLE: io
 * exception", "ssl exception" or "Network closed for unknown reason", with what happened only in the cause chain
 * (the JDK's certificate checks, or BoringSSL's alerts through Netty).
 */
final class TlsFailure {
  private TlsFailure() {}

  /** What went wrong, or null when nothing in {@code cause}'s chain (or gRPC's description) points at TLS. */
  static String describe(Throwable cause, String description) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      String message = String.valueOf(t.getMessage());
      if (t.getClass().getSimpleName().equals("NotSslRecordException")) {
        return "TLS to a broker that answered in plaintext: connect without TLS (drop --tls, --ca, --cert), or turn "
            + "TLS on at the broker (futureq.security.tls)";
      }
      if (message.contains("PKIX path") || message.contains("unable to find valid certification path")) {
        return "the broker's certificate is not signed by a CA this client trusts: name its CA (--ca, "
            + "trustedCertificates)";
      }
      if (message.contains("No subject alternative") || message.contains("No name matching")) {
        return "the broker's certificate does not name the address dialled (" + message + "): dial a name it has";
      }
      if (message.contains("ALERT_BAD_CERTIFICATE") || message.contains("ALERT_CERTIFICATE_REQUIRED")
          || message.contains("ALERT_UNKNOWN_CA") || message.contains("bad_certificate")) {
        return "the broker refused this client's certificate, or wants one: give one signed by the CA it trusts "
            + "(--cert and --cert-key, clientCertificate; the broker's futureq.security.tls.client-ca-file)";
      }
    }
    if (description != null && description.contains("Network closed for unknown reason")) {
      return "the broker closed the connection before answering (a client without TLS gets this from a broker that "
          + "requires it: --tls, --ca)";
    }
    return null;
  }
}
