package dev.tandem.server.api;

import jakarta.servlet.http.HttpServletRequest;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.SocketChannelEndPoint;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;

/**
 * Who is on the other end of a request that came through the daemon's Unix socket: the kernel's record of the
 * connecting process's user and group (SO_PEERCRED, taken when it connected), which a client cannot forge.
 */
final class SocketPeer {
    private SocketPeer() {}

    /** The peer of a Unix-socket request; null for a request over TCP. */
    static UnixDomainPrincipal of(HttpServletRequest req) {
        ServletContextRequest r = ServletContextRequest.getServletContextRequest(req);
        if (r == null) return null;
        EndPoint ep = r.getConnectionMetaData().getConnection().getEndPoint();
        if (!(ep instanceof SocketChannelEndPoint s) || !(s.getChannel() instanceof SocketChannel ch)) return null;
        try {
            if (!(ch.getLocalAddress() instanceof UnixDomainSocketAddress)) return null;
            return ch.getOption(ExtendedSocketOptions.SO_PEERCRED);
        } catch (IOException | UnsupportedOperationException e) {
            // a Unix-socket request whose peer cannot be told is refused rather than taken for anyone
            throw new ApiError(401, null, "cannot tell who is connected to the socket: " + e.getMessage());
        }
    }
}
