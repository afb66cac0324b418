package org.kafscale.proxy.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A fresh SoftHSM2 token in a folder of its own (its {@code softhsm2.conf} and token directory),
 * holding one AES-256 key made on the token (sensitive, never extractable: as an HSM's KEK would
 * be) with encrypt, decrypt, wrap and unwrap usage. {@code softhsm2-util} makes the token;
 * {@code pkcs11-tool} (OpenSC) makes the key, since softhsm2-util cannot make secret keys.
 *
 * <p>SoftHSM2 reads {@code SOFTHSM2_CONF} once, when a process first initializes the library, and
 * sees only the tokens that exist then; so the process that uses the token (a proxy started as a
 * process of its own) gets {@link #environment()}, and this JVM never loads the library.
 *
 * @param conf the {@code softhsm2.conf} the token is found through
 * @param slot the slot id SoftHSM2 gave the token
 * @param library the SoftHSM2 PKCS#11 library
 */
public record SoftHsmToken(Path conf, long slot, Path library, String pin, String keyLabel) {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final String INSTALL = "run scripts/ensure-test-tools.sh (apt-get install softhsm2 opensc)";
    /** Where Debian (and Ubuntu, Fedora) put the library. */
    private static final List<Path> LIBRARIES = List.of(Path.of("/usr/lib/softhsm/libsofthsm2.so"),
            Path.of("/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so"),
            Path.of("/usr/lib/aarch64-linux-gnu/softhsm/libsofthsm2.so"), Path.of("/usr/lib64/pkcs11/libsofthsm2.so"),
            Path.of("/usr/local/lib/softhsm/libsofthsm2.so"));
    private static final Pattern SLOT = Pattern.compile("reassigned to slot (\\d+)");

    /** A token labelled {@code tokenLabel} in {@code dir} (created if absent), its user PIN {@code pin}, with an AES-256 key labelled {@code keyLabel}. */
    public static SoftHsmToken create(Path dir, String tokenLabel, String pin, String keyLabel) {
        Path library = installedLibrary().orElseThrow(() -> new IllegalStateException("libsofthsm2.so not found: " + INSTALL));
        Path conf;
        try {
            Path tokens = Files.createDirectories(dir.resolve("tokens"));
            conf = Files.writeString(dir.resolve("softhsm2.conf"), "directories.tokendir = " + tokens + "\n"
                    + "objectstore.backend = file\nlog.level = ERROR\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> env = Map.of("SOFTHSM2_CONF", conf.toString());
        ChildProcess.Output init = run(List.of(Executables.require("softhsm2-util", INSTALL).toString(), "--init-token",
                "--free", "--label", tokenLabel, "--pin", pin, "--so-pin", pin + "-so"), env);
        Matcher slot = SLOT.matcher(init.stdout());
        if (!slot.find()) {
            throw new IllegalStateException("softhsm2-util named no slot: " + init.stdout() + init.stderr());
        }
        long slotId = Long.parseLong(slot.group(1));
        run(List.of(Executables.require("pkcs11-tool", INSTALL).toString(), "--module", library.toString(),
                "--slot", Long.toString(slotId), "--login", "--pin", pin, "--keygen", "--key-type", "AES:32",
                "--label", keyLabel, "--usage-decrypt", "--usage-wrap", "--sensitive"), env);
        return new SoftHsmToken(conf, slotId, library, pin, keyLabel);
    }

    /** The SoftHSM2 library, when installed. */
    public static Optional<Path> installedLibrary() {
        return LIBRARIES.stream().filter(Files::isRegularFile).findFirst();
    }

    /** What a process that uses the token needs in its environment. */
    public Map<String, String> environment() {
        return Map.of("SOFTHSM2_CONF", conf.toString());
    }

    private static ChildProcess.Output run(List<String> command, Map<String, String> env) {
        ChildProcess.Output output = ChildProcess.run(command, env, null, DEADLINE);
        if (output.exitCode() != 0) {
            throw new IllegalStateException(command.get(0) + " failed (" + output.exitCode() + "): " + output.stdout()
                    + output.stderr());
        }
        return output;
    }
}
