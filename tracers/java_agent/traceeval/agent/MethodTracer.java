package traceeval.agent;

import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.commons.AdviceAdapter;

/**
 * Instruments one program method: push on entry (for a constructor before its super/this call,
 * so that call is an edge from it), keep the frame's current line at every line-number label,
 * restore the stack depth before every return and in a catch-all handler that rethrows (for a
 * constructor, the handler starts after the super/this call, where the verifier allows one), and
 * remember the caller of {@code Thread.start()}.
 *
 * <p>Inserted code goes straight to the next visitor ({@code mv}): it leaves the operand stack as
 * it found it, and AdviceAdapter's constructor stack simulation must only see the original code.
 */
final class MethodTracer extends AdviceAdapter {
    static final int NODE = 0;
    static final int TRANSPARENT = 1;
    private static final String RUNTIME = "traceeval/agent/TraceRuntime";
    private static final String STACK = "traceeval/agent/TraceRuntime$Stack";
    private static final String STACK_DESC = "L" + STACK + ";";

    private final int kind;
    private final int id;
    private final boolean constructor;
    private final Label tryStart = new Label();
    private int stackLocal = -1;
    private int indexLocal = -1;
    private boolean tryStarted;

    MethodTracer(MethodVisitor next, int access, String name, String descriptor, int kind, int id) {
        super(Opcodes.ASM9, next, access, name, descriptor);
        this.kind = kind;
        this.id = id;
        this.constructor = name.equals("<init>");
    }

    @Override
    public void visitCode() {
        super.visitCode();  // for a method (not a constructor) this calls onMethodEnter
        if (constructor) {
            emitEnter();
        }
    }

    @Override
    protected void onMethodEnter() {
        if (!constructor) {
            emitEnter();
        }
        visitLabel(tryStart);
        tryStarted = true;
    }

    private void emitEnter() {
        push(id);
        String method = kind == TRANSPARENT ? "enterTransparent" : "enter";
        mv.visitMethodInsn(INVOKESTATIC, RUNTIME, method, "(I)" + STACK_DESC, false);
        stackLocal = newLocal(Type.getObjectType(STACK));
        indexLocal = newLocal(Type.INT_TYPE);
        dup();
        storeLocal(stackLocal);
        mv.visitFieldInsn(GETFIELD, STACK, "depth", "I");
        push(1);
        math(SUB, Type.INT_TYPE);
        storeLocal(indexLocal);
    }

    private void emitRestore() {
        loadLocal(stackLocal);
        loadLocal(indexLocal);
        mv.visitFieldInsn(PUTFIELD, STACK, "depth", "I");
    }

    @Override
    public void visitLineNumber(int line, Label start) {
        super.visitLineNumber(line, start);
        if (stackLocal >= 0) {
            loadLocal(stackLocal);
            mv.visitFieldInsn(GETFIELD, STACK, "lines", "[I");
            loadLocal(indexLocal);
            push(line);
            mv.visitInsn(IASTORE);
        }
    }

    @Override
    public void visitMethodInsn(int opcode, String owner, String name, String descriptor, boolean isInterface) {
        if (opcode == INVOKEVIRTUAL && stackLocal >= 0 && name.equals("start") && descriptor.equals("()V")) {
            dup();
            loadLocal(stackLocal);
            loadLocal(indexLocal);
            mv.visitMethodInsn(INVOKESTATIC, RUNTIME, "starting", "(Ljava/lang/Object;" + STACK_DESC + "I)V", false);
        }
        super.visitMethodInsn(opcode, owner, name, descriptor, isInterface);
    }

    @Override
    protected void onMethodExit(int opcode) {
        if (opcode != ATHROW) {  // a throw may be caught in this method; the handler below pops
            emitRestore();
        }
    }

    @Override
    public void visitMaxs(int maxStack, int maxLocals) {
        if (tryStarted) {
            Label end = new Label();
            Label handler = new Label();
            visitLabel(end);
            visitTryCatchBlock(tryStart, end, handler, null);
            visitLabel(handler);
            emitRestore();
            mv.visitInsn(ATHROW);
        }
        super.visitMaxs(maxStack, maxLocals);
    }
}
