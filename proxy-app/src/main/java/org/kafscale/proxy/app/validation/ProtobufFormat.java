package org.kafscale.proxy.app.validation;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.DescriptorValidationException;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.kafscale.proxy.core.validation.RecordFormat;

/**
 * Protobuf binary of one message type, from a descriptor set file ({@code protoc
 * --include_imports --descriptor_set_out=...}): the bytes parse as that message, its required
 * fields (proto2) set, and no field it does not declare, at any depth. A field sent with another
 * wire type than its declaration's is one the message does not know, so a record written with an
 * other schema is refused too; the file must therefore declare every field producers write.
 */
public final class ProtobufFormat implements RecordFormat {
    private final Descriptor message;

    private ProtobufFormat(Descriptor message) {
        this.message = message;
    }

    /**
     * The format of {@code messageName} (its full name, {@code shop.Order}) in descriptor set {@code set}.
     *
     * @throws IllegalArgumentException when {@code set} is not a descriptor set or has no such message
     */
    public static ProtobufFormat parse(byte[] set, String messageName) {
        FileDescriptorSet files;
        try {
            files = FileDescriptorSet.parseFrom(set);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalArgumentException("not a Protobuf descriptor set: " + e.getMessage(), e);
        }
        Map<String, FileDescriptorProto> byName = new HashMap<>();
        files.getFileList().forEach(file -> byName.put(file.getName(), file));
        Map<String, FileDescriptor> built = new HashMap<>();
        for (FileDescriptorProto file : files.getFileList()) {
            Descriptor found = build(file, byName, built).findMessageTypeByName(simpleName(file, messageName));
            if (found != null && found.getFullName().equals(messageName)) {
                return new ProtobufFormat(found);
            }
        }
        throw new IllegalArgumentException("has no message " + messageName + " (give its full name, package included)");
    }

    /** {@code file} built, its dependencies first (a descriptor set from --include_imports holds them all). */
    private static FileDescriptor build(FileDescriptorProto file, Map<String, FileDescriptorProto> byName,
                                        Map<String, FileDescriptor> built) {
        FileDescriptor done = built.get(file.getName());
        if (done != null) {
            return done;
        }
        List<String> names = file.getDependencyList();
        FileDescriptor[] dependencies = new FileDescriptor[names.size()];
        for (int i = 0; i < dependencies.length; i++) {
            FileDescriptorProto dependency = byName.get(names.get(i));
            if (dependency == null) {
                throw new IllegalArgumentException("lacks " + names.get(i) + ", which " + file.getName()
                        + " imports (write it with protoc --include_imports)");
            }
            dependencies[i] = build(dependency, byName, built);
        }
        try {
            FileDescriptor descriptor = FileDescriptor.buildFrom(file, dependencies);
            built.put(file.getName(), descriptor);
            return descriptor;
        } catch (DescriptorValidationException e) {
            throw new IllegalArgumentException("has an invalid " + file.getName() + ": " + e.getMessage(), e);
        }
    }

    /** The name {@code full} has inside {@code file}'s package, or {@code full} when it is of another. */
    private static String simpleName(FileDescriptorProto file, String full) {
        String prefix = file.getPackage().isEmpty() ? "" : file.getPackage() + ".";
        return full.startsWith(prefix) ? full.substring(prefix.length()) : full;
    }

    @Override
    public Check check(ByteBuffer bytes) {
        DynamicMessage parsed;
        try {
            parsed = DynamicMessage.parseFrom(message, RecordBytes.of(bytes));
        } catch (InvalidProtocolBufferException e) {
            return Check.invalid("not Protobuf of " + message.getFullName() + ": " + e.getMessage());
        }
        if (!parsed.isInitialized()) {
            return Check.invalid("not Protobuf of " + message.getFullName() + ": required fields missing: "
                    + parsed.findInitializationErrors());
        }
        String unknown = unknownField(parsed, message.getFullName());
        if (unknown != null) {
            return Check.invalid("not Protobuf of " + message.getFullName() + ": " + unknown);
        }
        return Check.VALID;
    }

    /** Where {@code parsed} or a message in it holds a field its type does not declare; null for nowhere. */
    private static String unknownField(Message parsed, String path) {
        if (!parsed.getUnknownFields().asMap().isEmpty()) {
            return "field " + parsed.getUnknownFields().asMap().keySet().iterator().next() + " of " + path
                    + " is not declared (or not with the wire type it was sent with)";
        }
        for (var field : parsed.getAllFields().entrySet()) {
            if (field.getKey().getJavaType() != com.google.protobuf.Descriptors.FieldDescriptor.JavaType.MESSAGE) {
                continue;
            }
            List<?> values = field.getKey().isRepeated() ? (List<?>) field.getValue() : List.of(field.getValue());
            for (Object value : values) {
                String unknown = unknownField((Message) value, path + "." + field.getKey().getName());
                if (unknown != null) {
                    return unknown;
                }
            }
        }
        return null;
    }
}
