package dev.tandem.server.api;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class TokensTest {
    @Test
    void tokensCarryThePrefixSoThatNoneLooksLikeAnOption() {
        Set<String> seen = new HashSet<>();
        // unprefixed, about one in 64 tokens started with '-' (one in 2,048 with '-h' or '-V', which the command line
        // took for options after --token); 20,000 tokens would have met that about ten times
        for (int i = 0; i < 20_000; i++) {
            String t = Tokens.generate();
            assertThat(t).startsWith(Tokens.PREFIX).matches("tandem_[A-Za-z0-9_-]{43}");
            assertThat(seen.add(t)).isTrue();
        }
    }

    @Test
    void onlyTheHashIsKeptAndItDependsOnTheWholeToken() {
        String t = Tokens.generate();
        assertThat(Tokens.hash(t)).hasSize(64).matches("[0-9a-f]+").doesNotContain(t)
                .isEqualTo(Tokens.hash(t)).isNotEqualTo(Tokens.hash(t.substring(Tokens.PREFIX.length())));
    }
}
