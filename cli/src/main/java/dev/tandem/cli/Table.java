package dev.tandem.cli;

import java.util.ArrayList;
import java.util.List;

/** A plain text table with columns as wide as their widest cell (the last column is not padded). */
final class Table {
    private final List<String[]> rows = new ArrayList<>();

    Table(String... header) {
        rows.add(header);
    }

    void add(String... cells) {
        rows.add(cells);
    }

    String render() {
        int cols = rows.getFirst().length;
        int[] width = new int[cols];
        for (String[] r : rows) for (int i = 0; i < cols; i++) width[i] = Math.max(width[i], r[i].length());
        StringBuilder sb = new StringBuilder();
        for (String[] r : rows) {
            for (int i = 0; i < cols; i++) {
                sb.append(i == cols - 1 ? r[i] : String.format("%-" + width[i] + "s  ", r[i]));
            }
            sb.append(System.lineSeparator());
        }
        return sb.toString();
    }

    static String cut(String s, int max) {
        if (s == null) return "";
        return s.length() <= max ? s : s.substring(0, max - 1) + "…";
    }
}
