package traceeval.agent;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Reads class files newer than ASM 9.4 knows (Java 21 to 25) without its version refusal.
 *
 * <p>ASM 9.4 (Debian's libasm-java) refuses any class file whose major version is above Java 20's
 * (64), although the format of versions 61 (Java 17) to 69 (Java 25) is one format: no new
 * constant-pool tag, opcode, or attribute that ASM must parse (preview-only features, minor
 * version 0xFFFF, are never enabled here). So a newer class file is read from a copy whose major
 * version says 64, and a rewritten class gets its own version back ({@link #version}). This is
 * what Byte Buddy's {@code net.bytebuddy.experimental} mode does with ASM. It is needed for the
 * JDK's own classes (read when frames are computed, see TraceAgent.LoaderClassWriter) and for
 * program classes compiled above --release 17 (programs using Java 21+ language features or APIs).
 */
final class ClassFiles {
    static final int ASM_MAX_MAJOR = Opcodes.V20;  // 64: minor 0, so the int is the major version

    private ClassFiles() {
    }

    static ClassReader reader(byte[] bytes) {
        if (bytes.length < 8 || major(bytes) <= ASM_MAX_MAJOR) {
            return new ClassReader(bytes);
        }
        byte[] lifted = bytes.clone();
        lifted[6] = (byte) (ASM_MAX_MAJOR >>> 8);
        lifted[7] = (byte) ASM_MAX_MAJOR;
        return new ClassReader(lifted);
    }

    /** What a transformer puts around each method: `next` itself, or a visitor that rewrites it. */
    interface MethodRewriter {
        MethodVisitor around(MethodVisitor next, int access, String name, String descriptor);
    }

    /** The class rewritten method by method, frames computed by `writer`, at its own version. */
    static byte[] rewrite(byte[] bytes, ClassWriter writer, MethodRewriter rewriter) {
        int version = version(bytes);
        reader(bytes).accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public void visit(int lifted, int access, String name, String signature, String superName,
                              String[] interfaces) {
                super.visit(version, access, name, signature, superName, interfaces);
            }

            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                             String[] exceptions) {
                MethodVisitor next = super.visitMethod(access, name, descriptor, signature, exceptions);
                return rewriter.around(next, access, name, descriptor);
            }
        }, ClassReader.SKIP_FRAMES);
        return writer.toByteArray();
    }

    /** The version as ASM's visit() takes it: minor in the high 16 bits, major in the low. */
    static int version(byte[] bytes) {
        int minor = ((bytes[4] & 0xFF) << 8) | (bytes[5] & 0xFF);
        return (minor << 16) | major(bytes);
    }

    private static int major(byte[] bytes) {
        return ((bytes[6] & 0xFF) << 8) | (bytes[7] & 0xFF);
    }
}
