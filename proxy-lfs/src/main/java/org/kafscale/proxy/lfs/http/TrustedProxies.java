package org.kafscale.proxy.lfs.http;

import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The peers whose {@code X-Forwarded-For} and {@code X-Real-IP} the LFS listener believes: the
 * load balancers and ingress controllers in front of it, as CIDR blocks. Any other peer could
 * write any address there and so dodge the per-client limits; its own address counts instead.
 * {@link #NONE} believes no one.
 */
public final class TrustedProxies {
    public static final TrustedProxies NONE = new TrustedProxies(List.of());

    private final List<Block> blocks;

    private TrustedProxies(List<Block> blocks) {
        this.blocks = List.copyOf(blocks);
    }

    /**
     * Parses {@code 10.0.0.0/8}, {@code fd00::/8} or a bare address (one host) for each entry.
     *
     * @throws IllegalArgumentException naming the entry that is not an IP address or block
     */
    public static TrustedProxies parse(List<String> entries) {
        List<Block> blocks = new ArrayList<>();
        for (String raw : entries) {
            String entry = raw.trim();
            if (entry.isEmpty()) {
                continue;
            }
            int slash = entry.indexOf('/');
            String host = slash < 0 ? entry : entry.substring(0, slash);
            byte[] address = NetUtil.createByteArrayFromIpAddressString(host);
            if (address == null) {
                throw new IllegalArgumentException("'" + entry + "' is not an IP address or CIDR block");
            }
            int bits = address.length * 8;
            int prefix = bits;
            if (slash >= 0) {
                try {
                    prefix = Integer.parseInt(entry.substring(slash + 1));
                } catch (NumberFormatException e) {
                    prefix = -1;
                }
                if (prefix < 0 || prefix > bits) {
                    throw new IllegalArgumentException("'" + entry + "' has a prefix length outside 0 to " + bits);
                }
            }
            blocks.add(new Block(address, prefix));
        }
        return blocks.isEmpty() ? NONE : new TrustedProxies(blocks);
    }

    /** Whether {@code address} lies in one of the blocks. */
    public boolean contains(InetAddress address) {
        byte[] bytes = address.getAddress();
        return blocks.stream().anyMatch(b -> b.contains(bytes));
    }

    /** Whether {@code literal} is an IP address (never a name: nothing is resolved) in one of the blocks. */
    boolean containsLiteral(String literal) {
        return Optional.ofNullable(NetUtil.createByteArrayFromIpAddressString(literal))
                .map(bytes -> blocks.stream().anyMatch(b -> b.contains(bytes))).orElse(false);
    }

    public boolean isEmpty() {
        return blocks.isEmpty();
    }

    private record Block(byte[] network, int prefix) {
        boolean contains(byte[] address) {
            if (address.length != network.length) {
                return false;
            }
            int whole = prefix / 8;
            for (int i = 0; i < whole; i++) {
                if (address[i] != network[i]) {
                    return false;
                }
            }
            int rest = prefix % 8;
            if (rest == 0) {
                return true;
            }
            int mask = (0xFF << (8 - rest)) & 0xFF;
            return (address[whole] & mask) == (network[whole] & mask);
        }
    }
}
