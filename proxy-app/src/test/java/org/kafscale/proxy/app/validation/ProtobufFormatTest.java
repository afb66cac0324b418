package org.kafscale.proxy.app.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.kafscale.proxy.app.validation.FormatsTest.assertInvalid;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.kafscale.proxy.core.validation.RecordFormat.Check;

/**
 * Protobuf by descriptor set, as protoc writes one for {@code shop.proto}:
 * {@code message Order { int64 id = 1; string item = 2; Line line = 3; } message Line { int32 count = 1; }}.
 */
public class ProtobufFormatTest {
    public static byte[] descriptorSet() {
        FileDescriptorProto file = FileDescriptorProto.newBuilder().setName("shop.proto").setPackage("shop")
                .setSyntax("proto3")
                .addMessageType(DescriptorProto.newBuilder().setName("Line")
                        .addField(field("count", 1, FieldDescriptorProto.Type.TYPE_INT32)))
                .addMessageType(DescriptorProto.newBuilder().setName("Order")
                        .addField(field("id", 1, FieldDescriptorProto.Type.TYPE_INT64))
                        .addField(field("item", 2, FieldDescriptorProto.Type.TYPE_STRING))
                        .addField(field("line", 3, FieldDescriptorProto.Type.TYPE_MESSAGE).setTypeName(".shop.Line")))
                .build();
        return FileDescriptorSet.newBuilder().addFile(file).build().toByteArray();
    }

    private static FieldDescriptorProto.Builder field(String name, int number, FieldDescriptorProto.Type type) {
        return FieldDescriptorProto.newBuilder().setName(name).setNumber(number).setType(type)
                .setLabel(FieldDescriptorProto.Label.LABEL_OPTIONAL);
    }

    private final ProtobufFormat order = ProtobufFormat.parse(descriptorSet(), "shop.Order");

    @Test
    void anOrderAsItsSchemaDeclaresItIsValid() throws IOException {
        assertEquals(Check.VALID, order.check(ByteBuffer.wrap(encode(out -> {
            out.writeInt64(1, 7);
            out.writeString(2, "pen");
            out.writeByteArray(3, nested(inner -> inner.writeInt32(1, 2)));
        }))));
        assertEquals(Check.VALID, order.check(ByteBuffer.wrap(new byte[0])));
    }

    @Test
    void bytesThatAreNoOrderAreInvalidWithTheirReason() throws IOException {
        assertInvalid(order.check(ByteBuffer.wrap(new byte[] {(byte) 0xff, (byte) 0xff})), "not Protobuf of shop.Order");
        assertInvalid(order.check(ByteBuffer.wrap(encode(out -> out.writeInt64(9, 1)))),
                "field 9 of shop.Order is not declared");
        // id sent as a string: a wire type its declaration does not have
        assertInvalid(order.check(ByteBuffer.wrap(encode(out -> out.writeString(1, "seven")))),
                "field 1 of shop.Order is not declared");
        assertInvalid(order.check(ByteBuffer.wrap(encode(out ->
                out.writeByteArray(3, nested(inner -> inner.writeString(4, "x")))))), "field 4 of shop.Order.line");
    }

    @Test
    void aMessageTheSetDoesNotHoldOrBytesThatAreNoSetAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> ProtobufFormat.parse(descriptorSet(), "shop.Invoice"));
        assertThrows(IllegalArgumentException.class, () -> ProtobufFormat.parse(descriptorSet(), "Order"));
        assertThrows(IllegalArgumentException.class, () -> ProtobufFormat.parse(new byte[] {(byte) 0xff}, "shop.Order"));
    }

    private interface Writes {
        void to(CodedOutputStream out) throws IOException;
    }

    private static byte[] encode(Writes writes) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        writes.to(out);
        out.flush();
        return bytes.toByteArray();
    }

    private static byte[] nested(Writes writes) throws IOException {
        return encode(writes);
    }
}
