package io.futureq.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The dashboard and alert rules shipped in docs/ as Grafana and Prometheus read them. Their metric names are checked
 * against a live broker in MonitoringE2ETest.
 */
class MonitoringDocsTest {
  private static final Path DASHBOARD = Path.of("docs", "grafana", "futureq.json");
  private static final Path RULES = Path.of("docs", "prometheus");

  @Test
  void theDashboardTakesItsDataSourceFromAVariableAndEveryQueryUsesIt() throws Exception {
    JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
    assertTrue(dashboard.path("schemaVersion").asInt() >= 39, "schemaVersion " + dashboard.path("schemaVersion"));
    JsonNode variable = dashboard.path("templating").path("list").get(0);
    assertEquals("datasource", variable.path("type").asText(), variable.toString());
    assertEquals("prometheus", variable.path("query").asText(), variable.toString());
    List<String> problems = new ArrayList<>();
    int targets = 0;
    for (JsonNode panel : dashboard.path("panels")) {
      if (panel.path("type").asText().equals("row")) {
        continue;
      }
      String title = panel.path("title").asText();
      if (!panel.path("datasource").path("uid").asText().equals("${datasource}")) {
        problems.add(title + ": panel datasource " + panel.path("datasource"));
      }
      for (JsonNode target : panel.path("targets")) {
        targets++;
        if (!target.path("datasource").path("uid").asText().equals("${datasource}")) {
          problems.add(title + ": target datasource " + target.path("datasource"));
        }
        if (target.path("expr").asText().isBlank()) {
          problems.add(title + ": a target without expr");
        }
      }
    }
    assertEquals(List.of(), problems);
    assertTrue(targets > 25, targets + " targets");
  }

  @Test
  void promtoolAcceptsTheAlertRulesAndEachAlertFiresOnItsTestSeries() throws Exception {
    Path promtool = Arrays.stream(System.getenv().getOrDefault("PATH", "").split(":"))
        .map(d -> Path.of(d, "promtool")).filter(Files::isExecutable).findFirst().orElse(null);
    assumeTrue(promtool != null, "promtool is not installed (Debian package prometheus; .ci/run installs it)");
    String checked = run(promtool, "check", "rules", "alerts.yml");
    assertTrue(checked.contains("SUCCESS") && !checked.contains("WARNING"), checked);
    String tested = run(promtool, "test", "rules", "alerts-test.yml");
    assertTrue(tested.contains("SUCCESS"), tested);
  }

  /** Runs promtool in docs/prometheus (where the test file names alerts.yml), failing on a non-zero exit. */
  private static String run(Path promtool, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(promtool.toString()));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).directory(RULES.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "promtool " + String.join(" ", args) + " still running");
    assertEquals(0, p.exitValue(), "promtool " + String.join(" ", args) + ":\n" + out);
    return out;
  }
}
