package org.kafscale.proxy.deploy.image;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Dockerfile read the way the builder reads it: continuation lines joined, comments dropped,
 * instructions grouped by stage, and ARG defaults declared before the first FROM substituted
 * into FROM lines. A stage built FROM an earlier stage has that stage's base image and starts
 * with its instructions, as the image it builds does. Enough for the checks here; not a full
 * parser (no heredocs, no escape directive).
 */
record Dockerfile(List<Stage> stages) {
    private static final Pattern ENV_PAIR = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)=(\"[^\"]*\"|\\S*)");
    private static final Pattern ARG_REFERENCE = Pattern.compile("\\$\\{?([A-Za-z_][A-Za-z0-9_]*)}?");

    record Instruction(String keyword, String arguments) {
    }

    /**
     * {@code image} is the external base image (followed through stages built on stages),
     * {@code parent} the stage it is built FROM or null, and {@code instructions} the first
     * {@code inherited} of which are the parent's.
     */
    record Stage(String image, String name, String parent, int inherited, List<Instruction> instructions) {
        List<Instruction> all(String keyword) {
            return instructions.stream().filter(i -> i.keyword().equals(keyword)).toList();
        }

        /** This stage's own instructions of that kind, not those it inherits. */
        List<Instruction> own(String keyword) {
            return instructions.subList(inherited, instructions.size()).stream()
                    .filter(i -> i.keyword().equals(keyword)).toList();
        }

        /** The stage's ENV, from `ENV a=b c="d e"` forms. */
        Map<String, String> env() {
            Map<String, String> env = new LinkedHashMap<>();
            Matcher pair = ENV_PAIR.matcher(String.join(" ", all("ENV").stream().map(Instruction::arguments).toList()));
            while (pair.find()) {
                env.put(pair.group(1), pair.group(2).replaceAll("^\"|\"$", ""));
            }
            return env;
        }

        Instruction last(String keyword) {
            List<Instruction> found = all(keyword);
            if (found.isEmpty()) {
                throw new AssertionError("Stage " + name + " has no " + keyword);
            }
            return found.get(found.size() - 1);
        }
    }

    static Dockerfile read(Path path) throws IOException {
        Map<String, String> globalArgs = new LinkedHashMap<>();
        List<Stage> stages = new ArrayList<>();
        for (String line : logicalLines(Files.readAllLines(path))) {
            String[] parts = line.split("\\s+", 2);
            Instruction instruction = new Instruction(parts[0].toUpperCase(Locale.ROOT), parts.length > 1 ? parts[1] : "");
            if (instruction.keyword().equals("FROM")) {
                String[] from = instruction.arguments().split("\\s+");
                String image = substitute(from[0], globalArgs);
                String name = from.length == 3 && from[1].equalsIgnoreCase("AS") ? from[2] : "stage-" + stages.size();
                Stage parent = stages.stream().filter(st -> st.name().equals(image)).findFirst().orElse(null);
                stages.add(parent == null ? new Stage(image, name, null, 0, new ArrayList<>())
                        : new Stage(parent.image(), name, parent.name(), parent.instructions().size(),
                                new ArrayList<>(parent.instructions())));
            } else if (stages.isEmpty()) {
                if (instruction.keyword().equals("ARG")) {
                    String[] arg = instruction.arguments().split("=", 2);
                    globalArgs.put(arg[0].trim(), arg.length > 1 ? arg[1].trim() : "");
                }
            } else {
                stages.get(stages.size() - 1).instructions().add(instruction);
            }
        }
        return new Dockerfile(stages);
    }

    Stage finalStage() {
        return stages.get(stages.size() - 1);
    }

    Stage stage(String name) {
        return stages.stream().filter(s -> s.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("No stage " + name));
    }

    private static List<String> logicalLines(List<String> physical) {
        List<String> logical = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String raw : physical) {
            String line = raw.strip();
            if (line.startsWith("#")) {
                continue;
            }
            if (line.endsWith("\\")) {
                current.append(line, 0, line.length() - 1).append(' ');
                continue;
            }
            current.append(line);
            if (!current.toString().isBlank()) {
                logical.add(current.toString().strip());
            }
            current.setLength(0);
        }
        return logical;
    }

    private static String substitute(String text, Map<String, String> args) {
        Matcher matcher = ARG_REFERENCE.matcher(text);
        StringBuilder result = new StringBuilder();
        while (matcher.find()) {
            String value = args.get(matcher.group(1));
            if (value == null) {
                throw new AssertionError("FROM uses ${" + matcher.group(1) + "} without a default");
            }
            matcher.appendReplacement(result, Matcher.quoteReplacement(value));
        }
        matcher.appendTail(result);
        return result.toString();
    }
}
