package dev.tandem.server.api;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;

/**
 * Bearer tokens: {@link #PREFIX} and 32 random bytes in URL-safe base64; only their SHA-256 (hex) is stored. The
 * prefix makes a token recognisable where it should not be (a secret scanner, a log someone pasted), and keeps it from
 * starting with '-': base64's alphabet has one, and a token such as "-hX..." after {@code --token} was read by the
 * command line as the options -h and -X (1 token in 2,048 or so). Tokens made before the prefix stay valid.
 */
public final class Tokens {
    public static final String PREFIX = "tandem_";
    private static final SecureRandom RANDOM = new SecureRandom();

    private Tokens() {}

    public static String generate() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    public static String hash(String token) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }
}
