package io.futureq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

class DurationConverterTest {
  private final DurationConverter converter = new DurationConverter();

  @Test
  void readsEveryUnit() {
    assertEquals(Duration.ofMillis(500), converter.convert("500ms"));
    assertEquals(Duration.ofSeconds(5), converter.convert("5s"));
    assertEquals(Duration.ofMinutes(1), converter.convert("1m"));
    assertEquals(Duration.ofHours(2), converter.convert("2h"));
    assertEquals(Duration.ofDays(1), converter.convert("1d"));
    assertEquals(Duration.ZERO, converter.convert("0s"));
  }

  /** The configuration's grammar: decimals, spaces and long unit names, as in conf/futureq.conf. */
  @Test
  void readsWhatTheConfigurationReads() {
    assertEquals(Duration.ofMillis(1500), converter.convert("1.5s"));
    assertEquals(Duration.ofSeconds(5), converter.convert("5 s"));
    assertEquals(Duration.ofMinutes(90), converter.convert("90 minutes"));
    assertEquals(Duration.ofDays(3), converter.convert("3 days"));
  }

  @Test
  void rejectsOtherFormsNamingTheValue() {
    for (String bad : new String[] {"", "5", "1.5", "s", "-5s", "5sec", "1h30m", "PT5S", "999999999999999999d"}) {
      TypeConversionException e = assertThrows(TypeConversionException.class, () -> converter.convert(bad), bad);
      assertEquals(true, e.getMessage().contains("'" + bad + "'"), e.getMessage());
    }
  }

  @Test
  void formatsInTheShortestFormItReadsBack() {
    for (String s : new String[] {"0s", "1ms", "1500ms", "5s", "90s", "1m", "2h", "1d"}) {
      assertEquals(s, DurationConverter.format(converter.convert(s)));
    }
  }
}
