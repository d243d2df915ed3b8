package io.futureq.reliability;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Three network namespaces ({@code fqcrash-n1..3}), each joined by a veth pair to one bridge in the
 * root namespace ({@code fqcrash-br}, 10.231.77.254), the nodes at 10.231.77.1-3. {@link #cut}
 * takes a node's bridge-side veth down, which drops everything to and from it (the machine has
 * neither iptables nor nft); {@link #heal} brings it back. Needs root and {@code ip}; {@link
 * #unavailable} says why not. Every name starts with {@code fqcrash-}, and {@link #clean} removes
 * them whatever state a previous run left.
 */
final class Netns implements AutoCloseable {
  static final String SUBNET = "10.231.77.";
  static final int NODES = 3;

  private Netns() {}

  static String host(int i) {
    return SUBNET + (i + 1);
  }

  static List<String> exec(int i) {
    return List.of("ip", "netns", "exec", "fqcrash-n" + (i + 1));
  }

  /** Null if namespaces can be made here, else why not. */
  static String unavailable() {
    if (!"root".equals(System.getProperty("user.name"))) {
      return "not root (user " + System.getProperty("user.name") + "): cannot create network namespaces";
    }
    try {
      run(false, "ip", "netns", "del", "fqcrash-probe");
      String out = run(false, "ip", "netns", "add", "fqcrash-probe");
      if (!out.isEmpty() && !out.startsWith("ok")) {
        return "'ip netns add' failed: " + out;
      }
      run(false, "ip", "netns", "del", "fqcrash-probe");
      return null;
    } catch (IOException e) {
      return "no 'ip' command: " + e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  /** Removes whatever a previous run left, then makes the bridge, the namespaces and the veth pairs. */
  static Netns create() throws Exception {
    clean();
    Netns net = new Netns();
    try {
      run(true, "ip", "link", "add", "fqcrash-br", "type", "bridge");
      run(true, "ip", "addr", "add", SUBNET + "254/24", "dev", "fqcrash-br");
      run(true, "ip", "link", "set", "fqcrash-br", "up");
      for (int i = 1; i <= NODES; i++) {
        String ns = "fqcrash-n" + i;
        run(true, "ip", "netns", "add", ns);
        run(true, "ip", "link", "add", "fqcrash-h" + i, "type", "veth", "peer", "name", "fqcrash-p" + i);
        run(true, "ip", "link", "set", "fqcrash-p" + i, "netns", ns);
        run(true, "ip", "link", "set", "fqcrash-h" + i, "master", "fqcrash-br");
        run(true, "ip", "link", "set", "fqcrash-h" + i, "up");
        run(true, "ip", "-n", ns, "addr", "add", SUBNET + i + "/24", "dev", "fqcrash-p" + i);
        run(true, "ip", "-n", ns, "link", "set", "fqcrash-p" + i, "up");
        run(true, "ip", "-n", ns, "link", "set", "lo", "up");
      }
    } catch (Exception e) {
      clean();
      throw e;
    }
    return net;
  }

  /** Node {@code i} can no longer reach, or be reached by, anyone. */
  void cut(int i) throws Exception {
    run(true, "ip", "link", "set", "fqcrash-h" + (i + 1), "down");
  }

  void heal(int i) throws Exception {
    run(true, "ip", "link", "set", "fqcrash-h" + (i + 1), "up");
  }

  static void clean() throws Exception {
    for (int i = 1; i <= NODES; i++) {
      run(false, "ip", "link", "del", "fqcrash-h" + i);
      run(false, "ip", "netns", "del", "fqcrash-n" + i);
    }
    run(false, "ip", "link", "del", "fqcrash-br");
  }

  @Override
  public void close() throws Exception {
    clean();
  }

  /** Runs a command; with {@code check}, fails on a non-zero status. Returns "ok" or its output. */
  private static String run(boolean check, String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(new ArrayList<>(List.of(command))).redirectErrorStream(true).start();
    if (!p.waitFor(20, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException(String.join(" ", command) + ": no exit within 20 s");
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (check && p.exitValue() != 0) {
      throw new IOException(String.join(" ", command) + " failed (" + p.exitValue() + "): " + out);
    }
    return p.exitValue() == 0 ? "ok" : out;
  }
}
