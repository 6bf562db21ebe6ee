package dev.tandem.server.api;

import dev.tandem.server.store.Role;
import dev.tandem.server.store.User;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AuthTest {
    private static final User CAROL = new User("carol", Role.USER, null, false, 0, null);

    @Test
    void aKnownTokenIsAnsweredFromMemoryUntilItsUserChanges() {
        Map<String, User> stored = new HashMap<>(Map.of(Tokens.hash("t1"), CAROL));
        int[] reads = {0};
        Auth auth = new Auth(h -> { reads[0]++; return Optional.ofNullable(stored.get(h)); }, List::of);
        assertThat(auth.authenticate("Bearer t1")).isEqualTo(CAROL);
        assertThat(auth.authenticate("bearer t1 ")).isEqualTo(CAROL);
        assertThat(reads[0]).isEqualTo(1);
        stored.clear();
        stored.put(Tokens.hash("t2"), CAROL); // rotated
        auth.forget("carol");
        assertThatThrownBy(() -> auth.authenticate("Bearer t1")).hasMessage("invalid token");
        assertThat(auth.authenticate("Bearer t2")).isEqualTo(CAROL);
        assertThatThrownBy(() -> auth.authenticate(null)).hasMessageContaining("missing bearer token");
        assertThatThrownBy(() -> auth.authenticate("Basic abc")).hasMessageContaining("missing bearer token");
    }

    /**
     * A request read its user just before the token was rotated, and the rotation's forget came before the request
     * remembered what it read: the old token must not be remembered as valid (before, it stayed valid until carol next
     * changed).
     */
    @Test
    void aTokenRotatedWhileARequestReadItIsNotRemembered() {
        Map<String, User> stored = new HashMap<>(Map.of(Tokens.hash("old"), CAROL));
        Auth[] auth = new Auth[1];
        boolean[] rotateDuringRead = {true};
        auth[0] = new Auth(h -> {
            Optional<User> read = Optional.ofNullable(stored.get(h));
            if (rotateDuringRead[0]) { // another request rotates carol's token now: committed, then forgotten
                rotateDuringRead[0] = false;
                stored.clear();
                stored.put(Tokens.hash("new"), CAROL);
                auth[0].forget("carol");
            }
            return read;
        }, List::of);
        assertThat(auth[0].authenticate("Bearer old")).isEqualTo(CAROL); // it was valid when read
        assertThatThrownBy(() -> auth[0].authenticate("Bearer old")).hasMessage("invalid token");
        assertThat(auth[0].authenticate("Bearer new")).isEqualTo(CAROL);
    }

    @Test
    void aDisabledUserIsRefusedWithoutAField() {
        User off = new User("dave", Role.USER, null, true, 0, null);
        Auth auth = new Auth(h -> Optional.of(off), List::of);
        assertThatThrownBy(() -> auth.authenticate("Bearer x")).isInstanceOfSatisfying(ApiError.class, e -> {
            assertThat(e.getMessage()).startsWith("user dave is disabled");
            assertThat(e.status()).isEqualTo(401);
            assertThat(e.field()).isNull();
        });
    }
}
