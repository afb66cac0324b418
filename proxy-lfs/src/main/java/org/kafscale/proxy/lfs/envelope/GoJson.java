package org.kafscale.proxy.lfs.envelope;

/**
 * String quoting as Go's {@code encoding/json} does it with HTML escaping on (its default): the
 * short escapes for quote, backslash, \b, \f, \n, \r and \t; other control characters, {@code <},
 * {@code >}, {@code &}, U+2028 and U+2029 as a lowercase {@code \}{@code u00XX}; everything else
 * as is. Lone surrogates (invalid UTF-16, so invalid UTF-8 in Go) become U+FFFD as Go writes them.
 */
final class GoJson {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private GoJson() {
    }

    static void quote(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '<', '>', '&', '\u2028', '\u2029' -> unicode(out, c);
                default -> {
                    if (c < 0x20) {
                        unicode(out, c);
                    } else if (Character.isHighSurrogate(c) && i + 1 < s.length()
                            && Character.isLowSurrogate(s.charAt(i + 1))) {
                        out.append(c).append(s.charAt(++i));
                    } else if (Character.isSurrogate(c)) {
                        out.append('\ufffd');
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    private static void unicode(StringBuilder out, char c) {
        out.append("\\u").append(HEX[c >> 12 & 0xF]).append(HEX[c >> 8 & 0xF]).append(HEX[c >> 4 & 0xF])
                .append(HEX[c & 0xF]);
    }
}
