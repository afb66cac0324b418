package org.kafscale.proxy.app.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.validation.RecordFormat.Check;

/** Each format on records a producer would send: what it takes, and what it says of what it refuses. */
class FormatsTest {
    static final String ORDER_AVRO = "{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"shop\",\"fields\":["
            + "{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"item\",\"type\":\"string\"}]}";
    static final String ORDER_JSON_SCHEMA = "{\"type\":\"object\",\"required\":[\"id\"],"
            + "\"properties\":{\"id\":{\"type\":\"integer\"},\"item\":{\"type\":\"string\"}}}";

    @Test
    void jsonTakesOneWellFormedValueAndSaysWhereOtherBytesGoWrong() {
        JsonFormat json = new JsonFormat();
        assertEquals(Check.VALID, json.check(utf8("{\"id\": 1, \"tags\": [\"a\"]}")));
        assertEquals(Check.VALID, json.check(utf8(" 42 ")));
        assertInvalid(json.check(utf8("{\"id\": 1")), "not JSON");
        assertInvalid(json.check(utf8("{} {}")), "more than one value");
        assertInvalid(json.check(utf8("")), "empty");
        assertInvalid(json.check(utf8("hello")), "not JSON");
    }

    @Test
    void jsonReadsADirectBufferWithoutMovingIt() {
        ByteBuffer direct = ByteBuffer.allocateDirect(16);
        direct.put("xx[1,2]".getBytes(StandardCharsets.US_ASCII)).flip().position(2);
        assertEquals(Check.VALID, new JsonFormat().check(direct));
        assertEquals(2, direct.position());
    }

    @Test
    void jsonSchemaTakesMatchingJsonAndNamesWhatDoesNotMatch() {
        JsonSchemaFormat schema = JsonSchemaFormat.parse(ORDER_JSON_SCHEMA.getBytes(StandardCharsets.UTF_8));
        assertEquals(Check.VALID, schema.check(utf8("{\"id\": 7, \"item\": \"pen\"}")));
        assertInvalid(schema.check(utf8("{\"item\": \"pen\"}")), "id");
        assertInvalid(schema.check(utf8("{\"id\": \"seven\"}")), "integer");
        assertInvalid(schema.check(utf8("{\"id\": ")), "not JSON");
        assertInvalid(schema.check(utf8("{\"id\": 7} {}")), "not JSON");
        assertInvalid(schema.check(utf8(" ")), "empty");
    }

    @Test
    void jsonSchemaThatIsNoSchemaIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> JsonSchemaFormat.parse("[1".getBytes(StandardCharsets.UTF_8)));
        assertThrows(IllegalArgumentException.class, () -> JsonSchemaFormat.parse("42".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void avroTakesADatumOfItsSchemaToTheLastByte() throws IOException {
        AvroFormat avro = AvroFormat.parse(ORDER_AVRO);
        byte[] order = order(ORDER_AVRO, 7, "pen");
        assertEquals(Check.VALID, avro.check(ByteBuffer.wrap(order)));
        byte[] longer = new byte[order.length + 1];
        System.arraycopy(order, 0, longer, 0, order.length);
        assertInvalid(avro.check(ByteBuffer.wrap(longer)), "bytes left");
        assertInvalid(avro.check(ByteBuffer.wrap(new byte[] {14})), "shop.Order");
        assertInvalid(avro.check(utf8("{\"id\": 7}")), "not Avro");
    }

    @Test
    void avroSchemaThatDoesNotParseIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> AvroFormat.parse("{\"type\":\"record\"}"));
        assertThrows(IllegalArgumentException.class, () -> AvroFormat.parse("not json"));
    }

    static byte[] order(String schemaText, long id, String item) throws IOException {
        Schema schema = new Schema.Parser().parse(schemaText);
        GenericRecord record = new GenericData.Record(schema);
        record.put("id", id);
        record.put("item", item);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(schema).write(record, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    static ByteBuffer utf8(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
    }

    static void assertInvalid(Check check, String says) {
        Check.Invalid invalid = assertInstanceOf(Check.Invalid.class, check);
        assertTrue(invalid.reason().contains(says), invalid.reason());
    }
}
