package io.futureq.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** A plain-text table: left-aligned columns two spaces apart, widths fitted to the cells. */
final class Table {
  private final String indent;
  private final List<String[]> rows = new ArrayList<>();

  Table(String indent, String... header) {
    this.indent = indent;
    rows.add(header);
  }

  Table row(Object... cells) {
    String[] row = new String[cells.length];
    for (int i = 0; i < cells.length; i++) {
      row[i] = String.valueOf(cells[i]);
    }
    rows.add(row);
    return this;
  }

  void print(PrintWriter out) {
    int[] widths = new int[rows.get(0).length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder(indent);
      for (int i = 0; i < row.length; i++) {
        line.append(i == row.length - 1 ? row[i] : String.format("%-" + widths[i] + "s  ", row[i]));
      }
      out.println(line);
    }
  }
}
