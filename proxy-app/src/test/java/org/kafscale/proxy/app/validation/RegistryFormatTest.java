package org.kafscale.proxy.app.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.kafscale.proxy.app.validation.FormatsTest.ORDER_AVRO;
import static org.kafscale.proxy.app.validation.FormatsTest.ORDER_JSON_SCHEMA;
import static org.kafscale.proxy.app.validation.FormatsTest.assertInvalid;
import static org.kafscale.proxy.app.validation.FormatsTest.order;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.validation.RecordFormat.Check;
import org.kafscale.proxy.testkit.RegistryServer;

/**
 * The registry wire format against a registry's REST API on a real socket: the first record of
 * an id waits for its lookup, the rest of that id do not ask again.
 */
class RegistryFormatTest {
    private final RegistryServer registry = RegistryServer.start()
            .register(1, "AVRO", ORDER_AVRO)
            .register(2, "JSON", ORDER_JSON_SCHEMA)
            .register(3, "PROTOBUF", "syntax = \"proto3\"; message M { int64 id = 1; }");

    @AfterEach
    void stop() {
        registry.close();
    }

    @Test
    void avroRecordOfARegisteredIdIsCheckedOnceItsSchemaArrivesAndTheSchemaIsAskedForOnce() throws Exception {
        RegistryFormat avro = new RegistryFormat(new SchemaRegistryClient(registry.url()), RegistryFormat.Kind.AVRO);
        ByteBuffer good = wire(1, order(ORDER_AVRO, 7, "pen"));
        Check first = avro.check(good);
        settle(first);
        assertEquals(Check.VALID, avro.check(good));
        assertEquals(Check.VALID, avro.check(wire(1, order(ORDER_AVRO, 8, "ink"))));
        assertInvalid(avro.check(wire(1, new byte[] {1, 20, 3})), "not Avro of shop.Order");
        assertEquals(1, registry.lookups());
    }

    @Test
    void jsonSchemaRecordOfTheRegistryIsChecked() throws Exception {
        RegistryFormat json = new RegistryFormat(new SchemaRegistryClient(registry.url()),
                RegistryFormat.Kind.JSON_SCHEMA);
        settle(json.check(wire(2, "{}".getBytes(StandardCharsets.UTF_8))));
        assertEquals(Check.VALID, json.check(wire(2, "{\"id\":1}".getBytes(StandardCharsets.UTF_8))));
        assertInvalid(json.check(wire(2, "{\"id\":\"x\"}".getBytes(StandardCharsets.UTF_8))), "integer");
    }

    @Test
    void unknownIdsOtherTypesAndBytesWithoutTheWireFormatAreInvalidWithTheirReason() throws Exception {
        RegistryFormat avro = new RegistryFormat(new SchemaRegistryClient(registry.url()), RegistryFormat.Kind.AVRO);
        assertInvalid(avro.check(ByteBuffer.wrap(new byte[] {1, 0, 0, 0, 1, 2})), "wire format");
        assertInvalid(avro.check(ByteBuffer.wrap(new byte[] {0, 0})), "wire format");
        settle(avro.check(wire(9, new byte[] {2})));
        assertInvalid(avro.check(wire(9, new byte[] {2})), "schema id 9 is not in the registry");
        settle(avro.check(wire(3, new byte[] {2})));
        assertInvalid(avro.check(wire(3, new byte[] {2})), "is a PROTOBUF schema, not AVRO");
    }

    @Test
    void aRegistryThatIsDownMakesTheRecordInvalidNamingTheFailure() throws Exception {
        java.net.URI url = registry.url();
        registry.close();
        RegistryFormat avro = new RegistryFormat(new SchemaRegistryClient(url), RegistryFormat.Kind.AVRO);
        settle(avro.check(wire(1, new byte[] {2})));
        assertInvalid(avro.check(wire(1, new byte[] {2})), "could not be had from the registry");
    }

    /** Waits for a pending check's lookup, as the policy does, within a deadline. */
    private static void settle(Check check) throws Exception {
        Check.Pending pending = assertInstanceOf(Check.Pending.class, check);
        pending.ready().toCompletableFuture().handle((ok, failed) -> null)
                .get(Duration.ofSeconds(30).toMillis(), TimeUnit.MILLISECONDS);
    }

    static ByteBuffer wire(int id, byte[] payload) {
        return ByteBuffer.allocate(5 + payload.length).put((byte) 0).putInt(id).put(payload).flip();
    }
}
