package io.futureq.cli;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads an ISO-8601 instant in UTC ({@code 2026-12-01T10:00:00Z}) or with an offset ({@code ...+01:00}). */
final class InstantConverter implements ITypeConverter<Instant> {
  static final String FORMS = "an ISO-8601 instant such as 2026-12-01T10:00:00Z or 2026-12-01T11:00:00+01:00";

  @Override
  public Instant convert(String value) {
    try {
      return OffsetDateTime.parse(value.trim()).toInstant();
    } catch (DateTimeParseException e) {
      throw new TypeConversionException("'" + value + "' is not " + FORMS);
    }
  }
}
