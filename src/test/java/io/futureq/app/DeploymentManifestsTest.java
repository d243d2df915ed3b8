package io.futureq.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import io.futureq.config.BrokerSettings;
import io.futureq.config.SettingsException;
import io.futureq.tls.TestCertificates;
import io.futureq.tls.TestCertificates.Issued;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/kubernetes/futureq.yaml as a user applies it: every FUTUREQ_ variable is a setting the broker knows, the
 * broker accepts the whole set (with the secrets' files where the manifest mounts them), and the container's
 * ports, the Services' ports and the probes agree with the settings they name.
 */
class DeploymentManifestsTest {
  private static final Path MANIFEST = Path.of("deploy/kubernetes/futureq.yaml");
  private static final String POD = "futureq-1";
  private static final String POD_IP = "10.1.2.3";
  private static final Pattern REFERENCE = Pattern.compile("\\$\\(([A-Z_]+)\\)");

  @TempDir
  Path dir;

  @Test
  void theStatefulSetsEnvironmentIsASettingsSetTheBrokerAccepts() throws Exception {
    Map<String, JsonNode> kinds = documents();
    JsonNode container = kinds.get("StatefulSet").at("/spec/template/spec/containers/0");
    Map<String, String> env = environment(container);

    BrokerSettings settings = accepted(env, "the manifest's settings are refused: ");

    assertTrue(settings.cluster().enabled());
    assertEquals(POD, settings.cluster().nodeId());
    assertEquals("kubernetes-api", settings.config().getString("futureq.cluster.discovery.method"));
    assertEquals(3, kinds.get("StatefulSet").at("/spec/replicas").asInt());
    assertEquals(List.of("futureq-0", "futureq-1", "futureq-2"), List.copyOf(settings.raft().peers().keySet()));
    assertTrue(settings.cluster().tls().enabled(), "cluster TLS: the Raft and remoting ports are beyond loopback");

    Map<String, Integer> ports = new TreeMap<>(Map.of("grpc", settings.api().port(),
        "management", settings.management().port(), "raft", settings.raft().port(),
        "remoting", settings.config().getInt("futureq.cluster.remoting.port"), "metrics", settings.metrics().port()));
    assertEquals(ports, namedPorts(container.get("ports"), "containerPort"), "container ports");
    assertEquals(ports, namedPorts(service(kinds, "futureq").at("/spec/ports"), "port"), "headless Service");
    assertTrue(service(kinds, "futureq").at("/spec/publishNotReadyAddresses").asBoolean(),
        "members must find each other before they are ready");
    assertEquals("/ready", container.at("/readinessProbe/httpGet/path").asText());
    assertEquals("/alive", container.at("/livenessProbe/httpGet/path").asText());
    assertEquals("management", container.at("/readinessProbe/httpGet/port").asText());
    assertEquals("management", container.at("/livenessProbe/httpGet/port").asText());
    assertEquals(1, kinds.get("PodDisruptionBudget").at("/spec/maxUnavailable").asInt());
    assertEquals("futureq", kinds.get("StatefulSet").at("/spec/serviceName").asText());
  }

  /**
   * The Containerfile (no image can be built here: no container daemon runs on this machine and no registry is
   * reachable for the JRE base image, so the test reads the file): it unpacks the tarball this build names, runs
   * bin/futureq server as a user that is not root, exposes the ports the settings name, and its environment is a
   * settings set the broker accepts once the operator has chosen plaintext or TLS.
   */
  @Test
  void theContainerfileRunsTheTarballAsANonRootUserWithThePortsOfTheSettings() throws Exception {
    List<String> lines = Files.readAllLines(Path.of("Containerfile"));
    String version = new String(Files.readAllBytes(Path.of("pom.xml"))).replaceFirst(
        "(?s).*?<artifactId>futureq</artifactId>\\s*<version>([^<]+)</version>.*", "$1");
    Map<String, String> env = imageEnvironment();
    env.put("FUTUREQ_SECURITY_ALLOW_INSECURE", "true");

    BrokerSettings settings = accepted(env, "the Containerfile's settings are refused: ");

    assertEquals(Path.of("/var/lib/futureq/store"), settings.storage().dataDir());
    assertEquals("0.0.0.0", settings.api().host());
    assertEquals("ARG VERSION=" + version, instruction(lines, "ARG VERSION"));
    assertEquals("ADD target/futureq-${VERSION}.tar.gz /opt/", instruction(lines, "ADD"));
    assertTrue(instruction(lines, "USER").matches("USER [1-9][0-9]*"), instruction(lines, "USER"));
    assertEquals("ENTRYPOINT [\"/opt/futureq/bin/futureq\"]", instruction(lines, "ENTRYPOINT"));
    assertEquals("CMD [\"server\"]", instruction(lines, "CMD"));
    assertEquals("EXPOSE " + settings.api().port() + " " + settings.management().port() + " "
        + settings.metrics().port() + " " + settings.config().getInt("futureq.cluster.remoting.port") + " 50005",
        instruction(lines, "EXPOSE"));
    assertTrue(String.join("\n", lines).contains("/dev/tcp/127.0.0.1/" + settings.management().port()),
        "the health check asks the management port's /ready");
  }

  /** deploy/compose.yaml: each node's environment, over the image's, is accepted, and its ports are the settings'. */
  @Test
  void theComposeFilesThreeNodesHaveSettingsTheBrokerAcceptsAndPublishTheirPorts() throws Exception {
    JsonNode services = new ObjectMapper(new YAMLFactory()).readTree(Path.of("deploy/compose.yaml").toFile())
        .get("services");
    List<String> nodes = new ArrayList<>();
    for (var service : (Iterable<Map.Entry<String, JsonNode>>) services::fields) {
      Map<String, String> env = imageEnvironment();
      service.getValue().get("environment").fields().forEachRemaining(e -> env.put(e.getKey(), e.getValue().asText()));

      BrokerSettings settings = accepted(env, service.getKey() + "'s settings are refused: ");

      assertEquals(service.getKey(), settings.cluster().nodeId());
      assertEquals(service.getKey(), service.getValue().get("hostname").asText());
      List<String> published = new ArrayList<>();
      service.getValue().get("ports").forEach(p -> published.add(p.asText().replaceFirst(".*:", "")));
      assertEquals(List.of(String.valueOf(settings.api().port()), String.valueOf(settings.metrics().port())),
          published, service.getKey() + "'s published container ports");
      assertEquals(settings.raft().peers().keySet(), Set.of("node-1", "node-2", "node-3"));
      nodes.add(service.getKey());
    }
    assertEquals(List.of("node-1", "node-2", "node-3"), nodes);
  }

  /** The settings the broker reads from {@code env}; a refusal fails the test naming {@code what} and each problem. */
  private static BrokerSettings accepted(Map<String, String> env, String what) {
    try {
      return BrokerSettings.from(BrokerSettings.load(null, env));
    } catch (SettingsException e) {
      throw new AssertionError(what + e.problems(), e);
    }
  }

  /** The image's ENV instruction (and its continuation lines); comments name variables too. */
  private static Map<String, String> imageEnvironment() throws IOException {
    String instructions = String.join("\n", Files.readAllLines(Path.of("Containerfile")).stream()
        .filter(l -> !l.startsWith("#")).toList());
    Map<String, String> env = new HashMap<>();
    Matcher envs = Pattern.compile("(FUTUREQ_[A-Z_]+)=([^\\s\\\\]+)").matcher(instructions);
    while (envs.find()) {
      env.put(envs.group(1), envs.group(2));
    }
    return env;
  }

  private static String instruction(List<String> lines, String prefix) {
    return lines.stream().filter(l -> l.startsWith(prefix + " ") || l.startsWith(prefix + "=")).findFirst()
        .orElseThrow(() -> new AssertionError("no " + prefix + " in the Containerfile"));
  }

  /** The manifest's documents by kind; the two Services under "Service:NAME". */
  private static Map<String, JsonNode> documents() throws IOException {
    Map<String, JsonNode> kinds = new HashMap<>();
    ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
    try (YAMLParser parser = new YAMLFactory().createParser(MANIFEST.toFile())) {
      for (JsonNode doc : yaml.readValues(parser, JsonNode.class).readAll()) {
        String kind = doc.get("kind").asText();
        kinds.put(kind.equals("Service") ? kind + ":" + doc.at("/metadata/name").asText() : kind, doc);
      }
    }
    return kinds;
  }

  private static JsonNode service(Map<String, JsonNode> kinds, String name) {
    return kinds.get("Service:" + name);
  }

  /**
   * The container's environment as the pod sees it: field references filled in, $(VAR) expanded, and the secrets'
   * mount paths moved under this test's directory, where valid files of each kind are written.
   */
  private Map<String, String> environment(JsonNode container) throws IOException {
    Map<String, String> env = new HashMap<>();
    for (JsonNode var : container.get("env")) {
      String field = var.at("/valueFrom/fieldRef/fieldPath").asText();
      String value = switch (field) {
        case "metadata.name" -> POD;
        case "status.podIP" -> POD_IP;
        case "" -> var.get("value").asText();
        default -> throw new AssertionError("a field the test does not know: " + field);
      };
      Matcher m = REFERENCE.matcher(value);
      value = m.replaceAll(r -> Matcher.quoteReplacement(env.get(r.group(1))));
      env.put(var.get("name").asText(), value.replace("/etc/futureq/", dir + "/"));
    }
    List<String> unknown = new ArrayList<>();
    env.keySet().stream().filter(k -> !k.startsWith("FUTUREQ_") && !List.of("POD_NAME", "POD_IP", "JAVA_OPTS")
        .contains(k)).forEach(unknown::add);
    assertEquals(List.of(), unknown, "variables the broker does not read");
    writeSecrets();
    return env;
  }

  private void writeSecrets() throws IOException {
    Issued ca = TestCertificates.authority("futureq-test-ca");
    Path cluster = Files.createDirectories(dir.resolve("cluster-tls"));
    TestCertificates.leaf(ca, "futureq-cluster", TestCertificates.rsa())
        .write(cluster.resolve("tls.crt"), cluster.resolve("tls.key"));
    TestCertificates.writePem(cluster.resolve("ca.crt"), ca.certificate());
    Path api = Files.createDirectories(dir.resolve("api-tls"));
    TestCertificates.leaf(ca, "futureq-api", TestCertificates.rsa()).write(api.resolve("tls.crt"),
        api.resolve("tls.key"));
    Path access = Files.createDirectories(dir.resolve("access"));
    Files.writeString(access.resolve("access-file"), "token ops sha256:"
        + "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\ngrant ops admin *\n");
  }

  private static Map<String, Integer> namedPorts(JsonNode ports, String field) {
    Map<String, Integer> named = new TreeMap<>();
    ports.forEach(p -> named.put(p.get("name").asText(), p.get(field).asInt()));
    return named;
  }
}
