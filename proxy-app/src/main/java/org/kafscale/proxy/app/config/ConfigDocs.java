package org.kafscale.proxy.app.config;

/**
 * The Markdown table of every setting, as it appears in docs/configuration.md between
 * {@link #BEGIN} and {@link #END}. A test fails when the file and this table differ.
 */
public final class ConfigDocs {
    public static final String BEGIN = "<!-- BEGIN GENERATED from ConfigKey by ConfigDocsTest; do not edit by hand -->";
    public static final String END = "<!-- END GENERATED -->";

    private ConfigDocs() {
    }

    /** The table, markers included. */
    public static String table() {
        StringBuilder table = new StringBuilder(BEGIN).append('\n')
                .append("| Variable | Default | Meaning |\n")
                .append("|---|---|---|\n");
        for (ConfigKey key : ConfigKey.values()) {
            table.append("| `").append(key.envName()).append("` | ")
                    .append(cell(key.defaultText())).append(" | ")
                    .append(cell(key.description())).append(" |\n");
        }
        return table.append(END).toString();
    }

    /** The document with its generated table replaced by the current one. */
    public static String withCurrentTable(String document) {
        int begin = document.indexOf(BEGIN);
        int end = document.indexOf(END);
        if (begin < 0 || end < begin) {
            throw new IllegalArgumentException("the document has no " + BEGIN + " ... " + END + " block");
        }
        return document.substring(0, begin) + table() + document.substring(end + END.length());
    }

    private static String cell(String text) {
        return text.replace("|", "\\|");
    }
}
