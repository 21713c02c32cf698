package com.demo.flow.tasks;

public abstract class Task {
    private final String name;
    private final int priority;

    protected Task(String name, int priority) {
        this.name = name;
        this.priority = priority;
    }

    public String getName() {
        return name;
    }

    public int getPriority() {
        return priority;
    }

    public final String execute(int depth) {
        String result = run(depth);
        return indent(depth) + getName() + ": " + result;
    }

    protected abstract String run(int depth);

    protected static String indent(int depth) {
        return depth == 0 ? "" : "  " + indent(depth - 1);
    }
}
