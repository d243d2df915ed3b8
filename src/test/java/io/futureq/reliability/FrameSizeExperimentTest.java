package io.futureq.reliability;

import io.futureq.e2e.TestBroker;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FrameSizeExperimentTest {
  @TempDir
  Path dir;

  @Test
  void againstAProcess() throws Exception {
    if (!Boolean.getBoolean("process")) {
      return;
    }
    try (BrokerNode node = BrokerNode.create(dir.resolve("p"), "", List.of())) {
      node.start(java.time.Duration.ofSeconds(90));
      int n = Integer.getInteger("conns", 40);
      ExecutorService pool = Executors.newFixedThreadPool(n);
      List<Future<String>> writes = new ArrayList<>();
      List<Socket> sockets = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        Socket s = new Socket("127.0.0.1", node.grpcPort);
        sockets.add(s);
        writes.add(pool.submit(() -> flood(s, 15)));
      }
      for (Future<String> f : writes) {
        try {
          System.out.println("[frame-process] " + f.get(120, TimeUnit.SECONDS));
        } catch (Exception e) {
          System.out.println("[frame-process] write still blocked: " + e);
        }
      }
      Thread.sleep(5000);
      System.out.println("[frame-process] broker alive: " + node.alive());
      System.out.println("[frame-process] broker output tail:\n" + node.tail(30));
      for (Socket s : sockets) {
        s.close();
      }
      pool.shutdownNow();
    }
  }

  @Test
  void bigGrpcMessageAgainstAProcess() throws Exception {
    if (!Boolean.getBoolean("bigmsg")) {
      return;
    }
    try (BrokerNode node = BrokerNode.create(dir.resolve("q"), "", List.of())) {
      node.start(java.time.Duration.ofSeconds(90));
      int mb = Integer.getInteger("mb", 300);
      byte[] body = new byte[mb << 20];
      io.grpc.ManagedChannel ch = RawGrpc.channel(node.grpcPort);
      long start = System.currentTimeMillis();
      try {
        RawGrpc.Outcome o = RawGrpc.call(ch, RawGrpc.raw("futureq.v1.Producer/Publish",
            io.grpc.MethodDescriptor.MethodType.UNARY), new io.grpc.Metadata(), java.time.Duration.ofSeconds(120), body);
        System.out.println("[bigmsg] " + mb + " MiB Publish -> " + o + " after " + (System.currentTimeMillis() - start) + " ms");
      } catch (Exception e) {
        System.out.println("[bigmsg] " + mb + " MiB Publish -> exception " + e);
      }
      Thread.sleep(3000);
      System.out.println("[bigmsg] broker alive: " + node.alive());
      java.nio.file.Files.copy(dir.resolve("q").resolve("broker-0.log"), Path.of("/tmp/rel-bigmsg-broker.log"),
          java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      ch.shutdownNow();
    }
  }

  static String flood(Socket s, int mb) throws Exception {
    OutputStream out = s.getOutputStream();
    out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    out.write(new byte[] {0, 0, 0, 4, 0, 0, 0, 0, 0});
    int len = 0xffffff;
    out.write(ByteBuffer.allocate(9).put((byte) (len >> 16)).put((byte) (len >> 8)).put((byte) len)
        .put((byte) 0x20).put((byte) 0).putInt(0).array());
    byte[] chunk = new byte[64 * 1024];
    long written = 0;
    try {
      while (written < (long) mb << 20) {
        out.write(chunk);
        written += chunk.length;
      }
      out.flush();
      return "wrote " + (written >> 20) + " MiB";
    } catch (Exception e) {
      return "stopped after " + (written >> 20) + " MiB: " + e;
    }
  }

  @Test
  void experiment() throws Exception {
    if (Boolean.getBoolean("process")) {
      return;
    }
    try (TestBroker broker = TestBroker.start(dir.resolve("data"))) {
      int port = broker.node.grpcPort();
      long before = heap();
      int n = Integer.getInteger("conns", 10);
      int mb = Integer.getInteger("mb", 12);
      ExecutorService pool = Executors.newFixedThreadPool(n);
      List<Socket> sockets = new ArrayList<>();
      List<Future<String>> writes = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        Socket s = new Socket("127.0.0.1", port);
        sockets.add(s);
        writes.add(pool.submit(() -> {
          OutputStream out = s.getOutputStream();
          out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
          out.write(new byte[] {0, 0, 0, 4, 0, 0, 0, 0, 0}); // empty SETTINGS
          int len = 0xffffff;
          out.write(ByteBuffer.allocate(9).put((byte) (len >> 16)).put((byte) (len >> 8)).put((byte) len)
              .put((byte) 0x20).put((byte) 0).putInt(0).array()); // unknown frame type, 16 MiB - 1 long
          byte[] chunk = new byte[64 * 1024];
          long written = 0;
          long start = System.currentTimeMillis();
          try {
            while (written < (long) mb << 20) {
              out.write(chunk);
              written += chunk.length;
            }
            out.flush();
            return "wrote " + (written >> 20) + " MiB in " + (System.currentTimeMillis() - start) + " ms";
          } catch (Exception e) {
            return "stopped after " + (written >> 20) + " MiB: " + e;
          }
        }));
      }
      for (Future<String> f : writes) {
        try {
          System.out.println("[frame] " + f.get(60, TimeUnit.SECONDS));
        } catch (Exception e) {
          System.out.println("[frame] write still blocked after 60 s: " + e);
        }
      }
      long during = heap();
      System.out.println("[frame] heap before " + (before >> 20) + " MiB, with " + n + " connections each "
          + "declaring a 16 MiB frame and sending " + mb + " MiB of it: " + (during >> 20) + " MiB");
      for (Socket s : sockets) {
        System.out.println("[frame] still connected: " + !s.isClosed() + ", input "
            + probeClosed(s));
        s.close();
      }
      pool.shutdownNow();
      System.out.println("[frame] heap after closing: " + (heap() >> 20) + " MiB");
    }
  }

  private static String probeClosed(Socket s) {
    try {
      s.setSoTimeout(500);
      byte[] b = new byte[4096];
      int total = 0;
      for (int r; (r = s.getInputStream().read(b)) >= 0; ) {
        total += r;
      }
      return "EOF after " + total + " bytes";
    } catch (java.net.SocketTimeoutException e) {
      return "open (no EOF)";
    } catch (Exception e) {
      return e.toString();
    }
  }

  private static long heap() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(300);
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
